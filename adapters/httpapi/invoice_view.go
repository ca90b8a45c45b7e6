package httpapi

import (
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// InvoiceView is inv as GET /v0/invoices/{id} shows it: what `fulfillment
// invoices preview` prints of an invoice the API does not show yet.
func InvoiceView(inv *invoicing.Invoice) InvoiceDTO { return toInvoiceDTO(inv) }
