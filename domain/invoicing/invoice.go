package invoicing

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

// InvoiceStatus is one of the eight statuses an invoice can hold; only six of
// them are ever visible through the API.
type InvoiceStatus string

// Invoice statuses. Draft and Accumulating are internal.
const (
	InvoiceDraft          InvoiceStatus = "draft"
	InvoiceAccumulating   InvoiceStatus = "accumulating"
	InvoiceUnpaid         InvoiceStatus = "unpaid"
	InvoicePendingPayment InvoiceStatus = "pending_payment"
	InvoicePaid           InvoiceStatus = "paid"
	InvoiceCancelled      InvoiceStatus = "cancelled"
	InvoiceRefunded       InvoiceStatus = "refunded"
	InvoiceCollecting     InvoiceStatus = "collecting"
)

// VisibleInvoiceStatuses are the statuses of invoices that are finalized and
// sent, in the order of api/openapi.yaml: the one list of what customers
// see (Visible, ParseVisibleInvoiceStatus; the postgres adapter's reads of
// visible invoices), which api/openapi.yaml's InvoiceStatus is compared
// with (api/closed_sets_test.go).
var VisibleInvoiceStatuses = []InvoiceStatus{
	InvoiceUnpaid, InvoicePendingPayment, InvoicePaid, InvoiceCancelled, InvoiceRefunded, InvoiceCollecting,
}

// InvoiceStatuses are the eight statuses, the internal two then the
// visible six: the one list of them, which the invoices table's CHECK is
// compared with (api/closed_sets_test.go).
var InvoiceStatuses = append([]InvoiceStatus{InvoiceDraft, InvoiceAccumulating}, VisibleInvoiceStatuses...)

// ParseInvoiceStatus accepts any of the eight statuses.
func ParseInvoiceStatus(s string) (InvoiceStatus, error) {
	if st := InvoiceStatus(s); slices.Contains(InvoiceStatuses, st) {
		return st, nil
	}
	return ParseVisibleInvoiceStatus(s)
}

// ParseVisibleInvoiceStatus accepts only the six visible statuses.
func ParseVisibleInvoiceStatus(s string) (InvoiceStatus, error) {
	if st := InvoiceStatus(s); st.Visible() {
		return st, nil
	}
	return "", domain.Invalid("status", "%q is not an invoice status", s)
}

// Visible reports whether invoices of this status may be shown.
func (s InvoiceStatus) Visible() bool {
	return slices.Contains(VisibleInvoiceStatuses, s)
}

// CurrencyUSD is the only currency invoices carry for now.
const CurrencyUSD = "USD"

// InvoiceItem is one line of an invoice.
type InvoiceItem struct {
	id          string
	title       string
	description string
	quantity    domain.Quantity
	unitCost    int64
	totalCost   int64
}

// InvoiceItemParams are the inputs of a line; TotalCost, when not nil, must
// agree with the computed quantity × unitCost.
type InvoiceItemParams struct {
	ID          string
	Title       string
	Description string
	Quantity    domain.Quantity
	UnitCost    int64
	TotalCost   *int64
}

// Invoice is the invoice aggregate: the invoice and its lines.
type Invoice struct {
	id             string
	organizationID string
	key            string
	status         InvoiceStatus
	name           string
	notes          string
	dueDate        time.Time
	currency       string
	items          []InvoiceItem
	totalAmount    int64
	createdAt      time.Time
	updatedAt      time.Time
	deletedAt      *time.Time
}

// InvoiceParams are the inputs of NewInvoice; TotalAmount, when not nil, must
// agree with the sum of the line totals.
type InvoiceParams struct {
	ID             string
	OrganizationID string
	Key            string
	Status         InvoiceStatus
	Name           string
	Notes          string
	DueDate        time.Time
	Currency       string
	Items          []InvoiceItemParams
	TotalAmount    *int64
	CreatedAt      time.Time
	UpdatedAt      time.Time
	DeletedAt      *time.Time
}

// NewInvoice validates p and computes the line totals and the invoice total.
func NewInvoice(p InvoiceParams) (*Invoice, error) {
	if !domain.ValidID(p.ID) {
		return nil, domain.Invalid("invoice.id", "%q is not a valid ID", p.ID)
	}
	if !domain.ValidID(p.OrganizationID) {
		return nil, domain.Invalid("invoice.organizationId", "%q is not a valid ID", p.OrganizationID)
	}
	if strings.TrimSpace(p.Key) == "" {
		return nil, domain.Invalid("invoice.key", "must not be empty")
	}
	if _, err := ParseInvoiceStatus(string(p.Status)); err != nil {
		return nil, err
	}
	if p.Currency != CurrencyUSD {
		return nil, domain.Invalid("invoice.currency", "%q is not supported (only USD)", p.Currency)
	}
	if p.DueDate.IsZero() || p.CreatedAt.IsZero() || p.UpdatedAt.IsZero() {
		return nil, domain.Invalid("invoice", "dueDate, createdAt and updatedAt are required")
	}
	if p.UpdatedAt.Before(p.CreatedAt) {
		return nil, domain.Invalid("invoice.updatedAt", "is before createdAt")
	}
	inv := &Invoice{
		id: p.ID, organizationID: p.OrganizationID, key: p.Key, status: p.Status,
		name: p.Name, notes: p.Notes, dueDate: p.DueDate.UTC(), currency: p.Currency,
		createdAt: p.CreatedAt.UTC(), updatedAt: p.UpdatedAt.UTC(), deletedAt: domain.UTCPtr(p.DeletedAt),
		items: make([]InvoiceItem, 0, len(p.Items)),
	}
	seen := make(map[string]bool, len(p.Items))
	for i, it := range p.Items {
		if !domain.ValidID(it.ID) || seen[it.ID] {
			return nil, domain.Invalid(fmt.Sprintf("invoice.items[%d].id", i), "%q is not a valid, unique ID", it.ID)
		}
		seen[it.ID] = true
		total, err := domain.LineTotal(it.Quantity, it.UnitCost)
		if err != nil {
			return nil, fmt.Errorf("invoice %s item %s: %w", p.ID, it.ID, err)
		}
		if it.TotalCost != nil && *it.TotalCost != total {
			return nil, domain.Invalid(fmt.Sprintf("invoice.items[%d].totalCost", i),
				"is %d but quantity × unitCost is %d", *it.TotalCost, total)
		}
		if inv.totalAmount, err = domain.AddCents(inv.totalAmount, total); err != nil {
			return nil, fmt.Errorf("invoice %s: %w", p.ID, err)
		}
		inv.items = append(inv.items, InvoiceItem{
			id: it.ID, title: it.Title, description: it.Description,
			quantity: it.Quantity, unitCost: it.UnitCost, totalCost: total,
		})
	}
	if p.TotalAmount != nil && *p.TotalAmount != inv.totalAmount {
		return nil, domain.Invalid("invoice.totalAmount", "is %d but the items add up to %d", *p.TotalAmount, inv.totalAmount)
	}
	return inv, nil
}

// RehydrateInvoice rebuilds an invoice from storage without recomputing it.
// Only the postgres adapter calls it; the database's constraints already
// guarantee the invariants NewInvoice checks.
func RehydrateInvoice(p InvoiceParams, totalAmount int64) *Invoice {
	inv := &Invoice{
		id: p.ID, organizationID: p.OrganizationID, key: p.Key, status: p.Status,
		name: p.Name, notes: p.Notes, dueDate: p.DueDate.UTC(), currency: p.Currency,
		createdAt: p.CreatedAt.UTC(), updatedAt: p.UpdatedAt.UTC(), deletedAt: domain.UTCPtr(p.DeletedAt),
		totalAmount: totalAmount, items: make([]InvoiceItem, 0, len(p.Items)),
	}
	for _, it := range p.Items {
		var total int64
		if it.TotalCost != nil {
			total = *it.TotalCost
		}
		inv.items = append(inv.items, InvoiceItem{
			id: it.ID, title: it.Title, description: it.Description,
			quantity: it.Quantity, unitCost: it.UnitCost, totalCost: total,
		})
	}
	return inv
}

// Accessors.
func (i *Invoice) ID() string             { return i.id }
func (i *Invoice) OrganizationID() string { return i.organizationID }
func (i *Invoice) Key() string            { return i.key }
func (i *Invoice) Status() InvoiceStatus  { return i.status }
func (i *Invoice) Name() string           { return i.name }
func (i *Invoice) Notes() string          { return i.notes }
func (i *Invoice) DueDate() time.Time     { return i.dueDate }
func (i *Invoice) Currency() string       { return i.currency }
func (i *Invoice) TotalAmount() int64     { return i.totalAmount }
func (i *Invoice) CreatedAt() time.Time   { return i.createdAt }
func (i *Invoice) UpdatedAt() time.Time   { return i.updatedAt }
func (i *Invoice) DeletedAt() *time.Time  { return i.deletedAt }

// Items returns a copy of the lines.
func (i *Invoice) Items() []InvoiceItem { return append([]InvoiceItem(nil), i.items...) }

// Visible reports whether the invoice may be shown through the API.
func (i *Invoice) Visible() bool { return i.status.Visible() && i.deletedAt == nil }

// Accessors of a line.
func (it InvoiceItem) ID() string                { return it.id }
func (it InvoiceItem) Title() string             { return it.title }
func (it InvoiceItem) Description() string       { return it.description }
func (it InvoiceItem) Quantity() domain.Quantity { return it.quantity }
func (it InvoiceItem) UnitCost() int64           { return it.unitCost }
func (it InvoiceItem) TotalCost() int64          { return it.totalCost }
