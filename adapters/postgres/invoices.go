package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type invoiceRow struct {
	bun.BaseModel `bun:"table:invoices,alias:i"`

	ID             string     `bun:"id,pk"`
	OrganizationID string     `bun:"organization_id"`
	Key            string     `bun:"key"`
	Status         string     `bun:"status"`
	Name           string     `bun:"name"`
	Notes          string     `bun:"notes"`
	DueDate        time.Time  `bun:"due_date"`
	Currency       string     `bun:"currency"`
	TotalAmount    int64      `bun:"total_amount"`
	SearchText     string     `bun:"search_text"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
	DeletedAt      *time.Time `bun:"deleted_at"`
}

type invoiceItemRow struct {
	bun.BaseModel `bun:"table:invoice_items,alias:it"`

	ID          string `bun:"id,pk"`
	InvoiceID   string `bun:"invoice_id"`
	Position    int    `bun:"position"`
	Title       string `bun:"title"`
	Description string `bun:"description"`
	// Quantity travels as text: numeric(22,3) ↔ domain.Quantity without
	// passing through float64.
	Quantity  string `bun:"quantity,type:numeric"`
	UnitCost  int64  `bun:"unit_cost"`
	TotalCost int64  `bun:"total_cost"`
}

// invoiceSearchText is the one lower-cased text the search of CONTRACT §4
// matches: ID, key, name, notes and every item's title and description,
// separated by a newline so a term never matches across two fields.
func invoiceSearchText(inv *domain.Invoice) string {
	parts := []string{inv.ID(), inv.Key(), inv.Name(), inv.Notes()}
	for _, it := range inv.Items() {
		parts = append(parts, it.Title(), it.Description())
	}
	return strings.ToLower(strings.Join(parts, "\n"))
}

func invoiceToRows(inv *domain.Invoice) (invoiceRow, []invoiceItemRow) {
	row := invoiceRow{
		ID: inv.ID(), OrganizationID: inv.OrganizationID(), Key: inv.Key(), Status: string(inv.Status()),
		Name: inv.Name(), Notes: inv.Notes(), DueDate: inv.DueDate(), Currency: inv.Currency(),
		TotalAmount: inv.TotalAmount(), SearchText: invoiceSearchText(inv),
		CreatedAt: inv.CreatedAt(), UpdatedAt: inv.UpdatedAt(), DeletedAt: inv.DeletedAt(),
	}
	items := make([]invoiceItemRow, 0, len(inv.Items()))
	for i, it := range inv.Items() {
		items = append(items, invoiceItemRow{
			ID: it.ID(), InvoiceID: inv.ID(), Position: i, Title: it.Title(), Description: it.Description(),
			Quantity: it.Quantity().String(), UnitCost: it.UnitCost(), TotalCost: it.TotalCost(),
		})
	}
	return row, items
}

func invoiceFromRows(row invoiceRow, items []invoiceItemRow) (*domain.Invoice, error) {
	p := domain.InvoiceParams{
		ID: row.ID, OrganizationID: row.OrganizationID, Key: row.Key, Status: domain.InvoiceStatus(row.Status),
		Name: row.Name, Notes: row.Notes, DueDate: row.DueDate, Currency: row.Currency,
		CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt, DeletedAt: row.DeletedAt,
		Items: make([]domain.InvoiceItemParams, 0, len(items)),
	}
	for _, it := range items {
		q, err := domain.ParseQuantity(it.Quantity)
		if err != nil {
			return nil, err
		}
		total := it.TotalCost
		p.Items = append(p.Items, domain.InvoiceItemParams{
			ID: it.ID, Title: it.Title, Description: it.Description, Quantity: q, UnitCost: it.UnitCost, TotalCost: &total,
		})
	}
	return domain.RehydrateInvoice(p, row.TotalAmount), nil
}

// visibleInvoices restricts q to invoices an organization may see.
func visibleInvoices(q *bun.SelectQuery, organizationID string) *bun.SelectQuery {
	return q.Where("i.organization_id = ?", organizationID).
		Where("i.status IN (?)", bun.In(domain.VisibleInvoiceStatuses)).
		Where("i.deleted_at IS NULL")
}

// InvoiceRepository implements ports.InvoiceRepository.
type InvoiceRepository struct{ db bun.IDB }

var _ ports.InvoiceRepository = (*InvoiceRepository)(nil)

// Get returns a visible invoice of the organization with its items.
func (r *InvoiceRepository) Get(ctx context.Context, organizationID, id string) (*domain.Invoice, error) {
	var row invoiceRow
	if err := visibleInvoices(r.db.NewSelect().Model(&row), organizationID).Where("i.id = ?", id).Scan(ctx); err != nil {
		return nil, dbErr(err)
	}
	items, err := r.itemsOf(ctx, []string{row.ID})
	if err != nil {
		return nil, err
	}
	return invoiceFromRows(row, items[row.ID])
}

// itemsOf fetches the items of many invoices in one query.
func (r *InvoiceRepository) itemsOf(ctx context.Context, ids []string) (map[string][]invoiceItemRow, error) {
	var rows []invoiceItemRow
	err := r.db.NewSelect().Model(&rows).Where("invoice_id IN (?)", bun.In(ids)).
		OrderExpr("invoice_id, position").Scan(ctx)
	if err != nil {
		return nil, dbErr(err)
	}
	out := make(map[string][]invoiceItemRow, len(ids))
	for _, row := range rows {
		out[row.InvoiceID] = append(out[row.InvoiceID], row)
	}
	return out, nil
}
