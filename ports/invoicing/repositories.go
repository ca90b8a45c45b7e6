package invoicing

import (
	"context"

	"github.com/acme3pl/fulfillment/ports"
)

// Repositories are the invoicing context's repositories, bound to the
// pool: its use cases only read.
type Repositories struct {
	Invoices InvoiceRepository
	Charges  InvoiceCharges
}

// InvoiceCharges reads the charges behind an invoice's lines (billing's
// charges: billing.ChargeRepository's OfInvoice).
type InvoiceCharges interface {
	// OfInvoice calls each, in occurredAt order then ID, for the charges
	// behind the invoice of one of the organization's billing periods
	// (finalized or open; a fixture's invoice has none): the page's window
	// of them (Take 0: every one, streamed), and reports whether more
	// follow the page. Charges priced at 0 make no line and are left out.
	OfInvoice(ctx context.Context, organizationID, invoiceID string, page ports.Page, each func(InvoiceCharge) error) (more bool, err error)
}
