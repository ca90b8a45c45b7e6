package invoicing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

// GetInvoice asks for one visible invoice of the organization.
type GetInvoice struct {
	OrganizationID string
	ID             string
}

// SpanAttributes implements Attributer.
func (q GetInvoice) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("organization.id", q.OrganizationID)}
}

// GetInvoiceHandler answers GetInvoice.
type GetInvoiceHandler struct {
	invoices ports.InvoiceRepository
}

// NewGetInvoiceHandler builds the handler.
func NewGetInvoiceHandler(r ports.InvoiceRepository) *GetInvoiceHandler {
	return &GetInvoiceHandler{invoices: r}
}

// Handle returns the invoice, or domain.ErrNotFound when it does not exist,
// is not visible or belongs to another organization. An ID of a shape the
// service never makes (`' OR 1=1`) names no record: it is not found without
// asking the database.
func (h *GetInvoiceHandler) Handle(ctx context.Context, q GetInvoice) (*invoicing.Invoice, error) {
	if !domain.ValidID(q.ID) {
		return nil, domain.ErrNotFound
	}
	return h.invoices.Get(ctx, q.OrganizationID, q.ID)
}
