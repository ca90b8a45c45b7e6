package invoicing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// GetInvoice asks for one visible invoice of the organization.
type GetInvoice struct {
	OrganizationID string
	ID             string
}

// SpanAttributes implements Attributer.
func (q GetInvoice) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID)
}

// NewGetInvoiceHandler builds the handler: the invoice, or
// domain.ErrNotFound when it does not exist, is not visible or belongs to
// another organization.
func NewGetInvoiceHandler(r invoicingports.InvoiceRepository) application.HandlerFunc[GetInvoice, *invoicing.Invoice] {
	return func(ctx context.Context, q GetInvoice) (*invoicing.Invoice, error) {
		return application.FindByID(ctx, r.Get, q.OrganizationID, q.ID)
	}
}
