package invoicing

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

// InvoiceRepository reads and writes invoice aggregates (an invoice and its
// items are one repository).
type InvoiceRepository interface {
	// Get returns a visible invoice of the organization, or domain.ErrNotFound.
	Get(ctx context.Context, organizationID, id string) (*invoicing.Invoice, error)
	// List returns one page of the organization's visible invoices that
	// match filter, each with its items, in the filter's order with ties
	// broken by ID in the same direction, and whether more follow. It reads
	// the page in one query and the items of all its invoices in one more.
	List(ctx context.Context, organizationID string, filter InvoiceFilter, page ports.Page) (invoices []*invoicing.Invoice, more bool, err error)
}

// InvoiceSortKey is the field an invoice list is ordered by: one of the
// InvoicesBy values, and nothing else (its field is unexported); the zero
// value is InvoicesByCreatedAt.
type InvoiceSortKey struct{ name string }

// The sort keys of GET /v0/invoices.
var (
	InvoicesByCreatedAt = InvoiceSortKey{}
	InvoicesByUpdatedAt = InvoiceSortKey{"updatedAt"}
	InvoicesByDueDate   = InvoiceSortKey{"dueDate"}
)

// String is the key's name in the API: createdAt, updatedAt or dueDate.
func (k InvoiceSortKey) String() string {
	if k.name == "" {
		return "createdAt"
	}
	return k.name
}

// InvoiceFilter narrows and orders an invoice list; the zero value lists
// every visible invoice, newest first.
type InvoiceFilter struct {
	// Status keeps invoices of one visible status; "" keeps all six.
	Status invoicing.InvoiceStatus
	// Search keeps invoices whose ID, key, name, notes or any item's title
	// or description contains it, case-insensitively, with % _ \ matching
	// themselves. "" does not filter. The application trims and bounds it.
	Search string
	// SortBy is the order.
	SortBy InvoiceSortKey
	// Ascending orders oldest first; the default is descending.
	Ascending bool
}

// InvoiceCharge is one charge behind an invoice's lines, naming its fact
// (docs/billing.md, "Every charge traceable").
type InvoiceCharge struct {
	ID            int64
	Fee           string // the card's fee, the service's code, operator, minimum or credit_forward
	Title         string
	QuantityMilli int64 // thousandths; storage: the units on hand at the day's end
	UnitCost      int64
	OccurredAt    time.Time
	WarehouseID   string // "" for none
	// SourceType is shipment, receipt, service, storage_day, operator,
	// minimum or credit_forward; SourceID the shipment's ID, the receipt's
	// or service's reference, the day (YYYY-MM-DD), the operator's
	// reference, or the period (YYYY-MM).
	SourceType, SourceID string
}
