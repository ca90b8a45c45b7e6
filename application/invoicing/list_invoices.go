package invoicing

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// MaxInvoiceSearchLength is the longest search term, in characters, after
// trimming (docs/invoices.md).
const MaxInvoiceSearchLength = 200

// ListInvoices asks for a page of the organization's visible invoices.
type ListInvoices struct {
	OrganizationID string
	// Status keeps one visible status; "" keeps all six.
	Status invoicing.InvoiceStatus
	// Search is the term as the caller sent it: Handle checks and trims it
	// (ParseInvoiceSearch); empty does not filter.
	Search string
	// SortBy is the order.
	SortBy invoicingports.InvoiceSortKey
	// Ascending orders oldest first; the default is newest first.
	Ascending bool
	Page      ports.Page
}

// SpanAttributes implements Attributer.
func (q ListInvoices) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID)
}

// InvoicePage is a page of invoices and whether more follow.
type InvoicePage = application.Page[*invoicing.Invoice]

// ParseInvoiceSortBy reads the sortBy parameter.
func ParseInvoiceSortBy(s string) (invoicingports.InvoiceSortKey, error) {
	for _, k := range []invoicingports.InvoiceSortKey{invoicingports.InvoicesByCreatedAt, invoicingports.InvoicesByUpdatedAt, invoicingports.InvoicesByDueDate} {
		if k.String() == s {
			return k, nil
		}
	}
	return invoicingports.InvoiceSortKey{}, domain.Invalid("sortBy", "%q is not one of createdAt, updatedAt, dueDate", s)
}

// ParseInvoiceSortOrder reads the sortOrder parameter: "asc" or "desc".
func ParseInvoiceSortOrder(s string) (ascending bool, err error) {
	switch s {
	case "asc":
		return true, nil
	case "desc":
		return false, nil
	}
	return false, domain.Invalid("sortOrder", "%q is not asc or desc", s)
}

// NewListInvoicesHandler builds the handler: it checks the search term and
// reads one page. The status and the order come typed; the HTTP adapter
// parses all of the list's parameters in one place
// (adapters/httpapi/invoicing/invoices.go, ListInvoicesQuery), the term included,
// and the check here keeps the rule for every other caller.
func NewListInvoicesHandler(r invoicingports.InvoiceRepository) application.HandlerFunc[ListInvoices, InvoicePage] {
	return application.List(func(ctx context.Context, q ListInvoices) ([]*invoicing.Invoice, bool, error) {
		search, err := ParseInvoiceSearch(q.Search)
		if err != nil {
			return nil, false, err
		}
		return r.List(ctx, q.OrganizationID, invoicingports.InvoiceFilter{Status: q.Status, Search: search, SortBy: q.SortBy, Ascending: q.Ascending}, q.Page)
	})
}

// ParseInvoiceSearch reads the search parameter: it trims s and checks it:
// at most MaxInvoiceSearchLength characters, valid UTF-8 and no control
// characters (no stored text can hold a NUL, and the fields of an invoice
// are joined by newlines, which a term must not match across). Trimming a
// term it returned changes nothing.
func ParseInvoiceSearch(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", domain.Invalid("search", "is not valid UTF-8")
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > MaxInvoiceSearchLength {
		return "", domain.Invalid("search", "is %d characters long; the limit is %d", n, MaxInvoiceSearchLength)
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", domain.Invalid("search", "must not contain control characters")
	}
	return s, nil
}
