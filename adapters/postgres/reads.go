package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres/invoicesql"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// A readQuery is a statement of the invoice list or detail (their SQL is in
// invoicesql): prepared on the service's pool, so that PostgreSQL plans it
// once per connection rather than once per request as it must plan the
// driver's formatted statements; elsewhere (tests, tools, a unit of work) it
// runs formatted by bun, whose query hooks then see it with its values.
type readQuery struct {
	hotQuery
	formatted string // the same text with bun's placeholders ?0, ?1, … for $1, $2, …
}

var dollarParam = regexp.MustCompile(`\$([1-9][0-9]*)`)

func newReadQuery(text string) *readQuery {
	formatted := dollarParam.ReplaceAllStringFunc(text, func(p string) string {
		n, _ := strconv.Atoi(p[1:])
		return "?" + strconv.Itoa(n-1)
	})
	return &readQuery{hotQuery: hotQuery{operation: "SELECT", sql: text}, formatted: formatted}
}

// pageKey selects the page statement of a list without a search term.
type pageKey struct {
	column    string
	ascending bool
	byStatus  bool
	skip      bool
}

var (
	invoiceItemsQuery  = newReadQuery(invoicesql.Items)
	invoiceDetailQuery = newReadQuery(invoicesql.Detail)
	invoicePageQueries = pageQueries()
	// readQueries are the statements the pool of NewPreparedRepositories
	// prepares: 24 pages (3 sort keys × 2 directions × with or without a
	// status × the first page or another), the items of a page and the
	// detail.
	readQueries = append([]*hotQuery{&invoiceItemsQuery.hotQuery, &invoiceDetailQuery.hotQuery}, pageHotQueries()...)
)

func pageQueries() map[pageKey]*readQuery {
	m := map[pageKey]*readQuery{}
	for _, col := range invoicesql.SortColumns {
		for _, asc := range []bool{false, true} {
			for _, byStatus := range []bool{false, true} {
				for _, skip := range []bool{false, true} {
					m[pageKey{col, asc, byStatus, skip}] = newReadQuery(invoicesql.Page(col, asc, byStatus, skip))
				}
			}
		}
	}
	return m
}

func pageHotQueries() []*hotQuery {
	var out []*hotQuery
	for _, q := range invoicePageQueries {
		out = append(out, &q.hotQuery)
	}
	return out
}

// NewPreparedRepositories builds every repository on the pool, as
// NewRepositories does, except that the invoice list (without a search term)
// and detail run as server-side prepared statements, prepared on first use.
// Search terms keep the driver's formatted statements: their plan depends on
// the term (the trigram index for a rare one, the ordered index for a common
// one), so PostgreSQL must plan each anyway.
func NewPreparedRepositories(db *bun.DB) ports.Repositories {
	r := newRepositories(db, nil)
	r.Invoices = &InvoiceRepository{db: db, reads: newStatements(db, readQueries)}
	return r
}

// read runs q and calls scan once per row: as the prepared statement when r
// holds one, else formatted by bun.
func (r runner) read(ctx context.Context, q *readQuery, scan func(*sql.Rows) error, args ...any) error {
	if r.prepared != nil && r.prepared.byQuery[&q.hotQuery] != nil {
		return r.query(ctx, &q.hotQuery, scan, args...)
	}
	rows, err := r.db.QueryContext(ctx, q.formatted, args...)
	if err != nil {
		return err
	}
	return scanAll(rows, scan)
}

// scanAll calls scan once per row of rows and closes them.
func scanAll(rows *sql.Rows, scan func(*sql.Rows) error) error {
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// invoiceWithItems is an invoice read with its items.
type invoiceWithItems struct {
	row   invoiceRow
	items []invoiceItemRow
}

// The scanners read rows with explicit destinations instead of bun's
// reflection over a model.

// scanInvoice reads invoicesql.InvoiceColumns, then more.
func scanInvoice(rows *sql.Rows, organizationID string, more ...any) (invoiceRow, error) {
	row := invoiceRow{OrganizationID: organizationID}
	dest := append([]any{&row.ID, &row.Key, &row.Status, &row.Name, &row.Notes, &row.DueDate, &row.Currency,
		&row.TotalAmount, &row.CreatedAt, &row.UpdatedAt}, more...)
	return row, rows.Scan(dest...)
}

// pageScanner appends the invoices of a page (invoicesql.Page) to *out.
func pageScanner(organizationID string, out *[]invoiceWithItems) func(*sql.Rows) error {
	return func(rows *sql.Rows) error {
		row, err := scanInvoice(rows, organizationID)
		*out = append(*out, invoiceWithItems{row: row})
		return err
	}
}

// pageItems reads the items of a page (invoicesql.Items) into one slice,
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

// detailScanner reads an invoice with its items (invoicesql.Detail) into
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
	item := append(nulls(invoicesql.Width(invoicesql.InvoiceColumns)),
		&it.ID, &it.Title, &it.Description, &it.Quantity, &it.UnitCost, &it.TotalCost, &it.Position)
	invoiceRest := nulls(invoicesql.Width(invoicesql.ItemColumns) + 1) // and the position
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
func invoicesOf(read []invoiceWithItems) ([]*domain.Invoice, error) {
	out := make([]*domain.Invoice, len(read))
	for i, r := range read {
		var err error
		if out[i], err = invoiceFromRows(r.row, r.items); err != nil {
			return nil, fmt.Errorf("load invoice %s: %w", r.row.ID, err)
		}
	}
	return out, nil
}
