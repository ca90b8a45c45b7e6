package invoicing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// MaxChargesTake is the largest page of an invoice's charges.
const MaxChargesTake = 1000

// ListInvoiceCharges asks for the charges behind one visible invoice of the
// organization (GET /v0/invoices/{id}/charges): the page's window of them,
// or every one when Page.Take is 0 (the CSV, streamed), each handed to
// Each as it is read.
type ListInvoiceCharges struct {
	OrganizationID string
	InvoiceID      string
	Page           ports.Page
	Each           func(invoicingports.InvoiceCharge) error
}

// SpanAttributes implements Attributer.
func (q ListInvoiceCharges) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("organization.id", q.OrganizationID), attribute.String("invoice.id", q.InvoiceID)}
}

// ListInvoiceChargesHandler answers ListInvoiceCharges.
type ListInvoiceChargesHandler struct {
	invoices invoicingports.InvoiceRepository
	charges  invoicingports.InvoiceCharges
}

// NewListInvoiceChargesHandler builds the handler.
func NewListInvoiceChargesHandler(invoices invoicingports.InvoiceRepository, charges invoicingports.InvoiceCharges) *ListInvoiceChargesHandler {
	return &ListInvoiceChargesHandler{invoices: invoices, charges: charges}
}

// Handle reports whether more charges follow the page. The invoice must be
// one the organization sees (domain.ErrNotFound otherwise, as GetInvoice);
// a fixture's invoice has no charges.
func (h *ListInvoiceChargesHandler) Handle(ctx context.Context, q ListInvoiceCharges) (bool, error) {
	if !domain.ValidID(q.InvoiceID) {
		return false, domain.ErrNotFound
	}
	if _, err := h.invoices.Get(ctx, q.OrganizationID, q.InvoiceID); err != nil {
		return false, err
	}
	return h.charges.OfInvoice(ctx, q.OrganizationID, q.InvoiceID, q.Page, q.Each)
}
