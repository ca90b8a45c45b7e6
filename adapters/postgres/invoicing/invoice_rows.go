package invoicing

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// The invoice's rows, their conversions to and from the domain's invoice,
// and the scanners of the invoice reads (invoices.go): these read rows
// with explicit destinations instead of bun's reflection over a model.
type invoiceRow struct {
	ID             string
	OrganizationID string
	Key            string
	Status         string
	Name           string
	Notes          string
	DueDate        time.Time
	Currency       string
	TotalAmount    int64
	SearchText     string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	DeletedAt      *time.Time
}

type invoiceItemRow struct {
	ID          string
	InvoiceID   string
	Position    int
	Title       string
	Description string
	// Quantity travels as text: numeric(22,3) ↔ domain.Quantity without
	// passing through float64.
	Quantity  string
	UnitCost  int64
	TotalCost int64
}

// invoiceSearchText is the one lower-cased text the invoice search (docs/invoices.md)
// matches: ID, key, name, notes and every item's title and description,
// separated by a newline so a term never matches across two fields.
func invoiceSearchText(inv *invoicing.Invoice) string {
	parts := []string{inv.ID(), inv.Key(), inv.Name(), inv.Notes()}
	for _, it := range inv.Items() {
		parts = append(parts, it.Title(), it.Description())
	}
	return strings.ToLower(strings.Join(parts, "\n"))
}

func invoiceToRows(inv *invoicing.Invoice) (invoiceRow, []invoiceItemRow) {
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

func invoiceFromRows(row invoiceRow, items []invoiceItemRow) (*invoicing.Invoice, error) {
	p := invoicing.InvoiceParams{
		ID: row.ID, OrganizationID: row.OrganizationID, Key: row.Key, Status: invoicing.InvoiceStatus(row.Status),
		Name: row.Name, Notes: row.Notes, DueDate: row.DueDate, Currency: row.Currency,
		CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt, DeletedAt: row.DeletedAt,
		Items: make([]invoicing.InvoiceItemParams, 0, len(items)),
	}
	for _, it := range items {
		q, err := domain.ParseQuantity(it.Quantity)
		if err != nil {
			return nil, err
		}
		total := it.TotalCost
		p.Items = append(p.Items, invoicing.InvoiceItemParams{
			ID: it.ID, Title: it.Title, Description: it.Description, Quantity: q, UnitCost: it.UnitCost, TotalCost: &total,
		})
	}
	return invoicing.RehydrateInvoice(p, row.TotalAmount), nil
}

// invoiceWithItems is an invoice read with its items.
type invoiceWithItems struct {
	row   invoiceRow
	items []invoiceItemRow
}

// scanInvoice reads the invoice columns of invoiceLists' statements and
// invoiceDetailSQL, then more.
func scanInvoice(rows *sql.Rows, organizationID string, more ...any) (invoiceRow, error) {
	row := invoiceRow{OrganizationID: organizationID}
	dest := append([]any{&row.ID, &row.Key, &row.Status, &row.Name, &row.Notes, &row.DueDate, &row.Currency,
		&row.TotalAmount, &row.CreatedAt, &row.UpdatedAt}, more...)
	return row, rows.Scan(dest...)
}

// pageScanner appends the invoices of a page (invoiceLists) to *out.
func pageScanner(organizationID string, out *[]invoiceWithItems) func(*sql.Rows) error {
	return func(rows *sql.Rows) error {
		row, err := scanInvoice(rows, organizationID)
		*out = append(*out, invoiceWithItems{row: row})
		return err
	}
}

// pageItems reads the items of a page (invoiceItemsSQL) into one slice,
// and then gives each invoice of the page its run of it: the statement
// returns them grouped by invoice, so that this costs a few allocations
// per page rather than a few per invoice.
type pageItems struct {
	page []invoiceWithItems
	all  []invoiceItemRow
}

func (p *pageItems) scan(rows *sql.Rows) error {
	var it invoiceItemRow
	if err := rows.Scan(&it.InvoiceID, &it.ID, &it.Title, &it.Description, &it.Quantity, &it.UnitCost, &it.TotalCost); err != nil {
		return err
	}
	p.all = append(p.all, it)
	return nil
}

// assign adds the items read to their invoices, in the order read.
func (p *pageItems) assign() {
	at := make(map[string]int, len(p.page))
	for i, inv := range p.page {
		at[inv.row.ID] = i
	}
	for j := 0; j < len(p.all); {
		k := j + 1
		for k < len(p.all) && p.all[k].InvoiceID == p.all[j].InvoiceID {
			k++
		}
		if i, ok := at[p.all[j].InvoiceID]; ok {
			if p.page[i].items == nil {
				// Shares all's array, capped: a later run of the same
				// invoice (were the rows not grouped) is appended to a
				// copy, not over the next invoice's items.
				p.page[i].items = p.all[j:k:k]
			} else {
				p.page[i].items = append(p.page[i].items, p.all[j:k]...)
			}
		}
		j = k
	}
}

// detailScanner reads an invoice with its items (invoiceDetailSQL) into
// *out, which holds it after the first row: that row's invoice columns,
// then each later row's item columns, the rest of each row being NULL.
func detailScanner(organizationID string, out *[]invoiceWithItems) func(*sql.Rows) error {
	var null any // a NULL column's destination
	nulls := func(n int) []any {
		d := make([]any, n)
		for i := range d {
			d[i] = &null
		}
		return d
	}
	var it invoiceItemRow
	item := append(nulls(10), // the invoice's columns
		&it.ID, &it.Title, &it.Description, &it.Quantity, &it.UnitCost, &it.TotalCost, &it.Position)
	invoiceRest := nulls(7) // the item's columns and its position
	return func(rows *sql.Rows) error {
		if len(*out) == 0 {
			row, err := scanInvoice(rows, organizationID, invoiceRest...)
			if err != nil {
				return err
			}
			*out = append(*out, invoiceWithItems{row: row})
			return nil
		}
		inv := &(*out)[0]
		if err := rows.Scan(item...); err != nil {
			return err
		}
		it.InvoiceID = inv.row.ID
		inv.items = append(inv.items, it)
		return nil
	}
}

// invoicesOf builds the domain invoices of what the scanners read.
func invoicesOf(read []invoiceWithItems) ([]*invoicing.Invoice, error) {
	out := make([]*invoicing.Invoice, len(read))
	for i, r := range read {
		var err error
		if out[i], err = invoiceFromRows(r.row, r.items); err != nil {
			return nil, fmt.Errorf("load invoice %s: %w", r.row.ID, err)
		}
	}
	return out, nil
}
