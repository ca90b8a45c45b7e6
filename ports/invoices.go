package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// InvoiceRepository reads and writes invoice aggregates (an invoice and its
// items are one repository).
type InvoiceRepository interface {
	// Get returns a visible invoice of the organization, or domain.ErrNotFound.
	Get(ctx context.Context, organizationID, id string) (*domain.Invoice, error)
}
