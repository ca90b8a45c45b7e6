// Package invoicing is the HTTP adapter of the invoicing context: an
// organization's invoices (/v0/invoices) and an invoice's charges, as JSON
// or CSV, their handlers and the invoice list's query, over the kit of
// package httpapi. It imports no other context's routes.
package invoicing

import (
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
)

// Routes are the context's groups of routes, for the server to mount.
func Routes(app *invoicingapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper) []httpapi.Routes {
	return []httpapi.Routes{NewInvoices(app, auth, errs), NewInvoiceCharges(app, auth, errs)}
}
