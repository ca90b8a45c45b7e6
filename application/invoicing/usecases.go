package invoicing

import (
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// UseCases are the invoices' reads, each with its span and log line (the
// invoices' writes are billing's).
type UseCases struct {
	ListInvoices application.Handler[ListInvoices, InvoicePage]
	GetInvoice   application.Handler[GetInvoice, *invoicing.Invoice]
	// ListInvoiceCharges answers whether more charges follow the page.
	ListInvoiceCharges application.Handler[ListInvoiceCharges, bool]
}

// New builds the use cases.
func New(d application.Deps[invoicingports.Repositories]) *UseCases {
	return &UseCases{
		ListInvoices: application.Decorate("ListInvoices", NewListInvoicesHandler(d.Repos.Invoices), d.Tracer, d.Log),
		GetInvoice:   application.Decorate("GetInvoice", NewGetInvoiceHandler(d.Repos.Invoices), d.Tracer, d.Log),
		ListInvoiceCharges: application.Decorate("ListInvoiceCharges", NewListInvoiceChargesHandler(d.Repos.Invoices, d.Repos.Charges),
			d.Tracer, d.Log),
	}
}
