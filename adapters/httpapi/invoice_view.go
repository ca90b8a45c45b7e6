package httpapi

import (
	"time"

	"github.com/acme3pl/fulfillment/adapters/resources"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// What the CLI (cmd/fulfillment) prints as the API would: the records'
// conversions are package resources', shared with the events adapter.

// InvoiceDTO is the Invoice of api/openapi.yaml.
type InvoiceDTO = resources.Invoice

// InvoiceView is inv as GET /v0/invoices/{id} shows it: what `fulfillment
// invoices preview` prints of an invoice the API does not show yet.
func InvoiceView(inv *invoicing.Invoice) InvoiceDTO { return resources.InvoiceOf(inv) }

// FormatTime writes t as the API writes times: UTC, milliseconds.
func FormatTime(t time.Time) string { return resources.FormatTime(t) }
