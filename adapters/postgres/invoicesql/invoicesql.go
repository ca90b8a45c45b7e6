// Package invoicesql is the SQL text of the invoice reads that run as
// server-side prepared statements: the page of a list without a search term,
// the items of a page, and the detail of one invoice. The repository
// (adapters/postgres) prepares these texts; the read benchmark's baseline
// (bench/baseline, a bare net/http + pgx handler) runs the very same ones, so
// that both ask PostgreSQL exactly the same thing.
//
// Every statement restricts to the visible invoices with the same literal
// predicate as the partial indexes of migration 0002, so that PostgreSQL can
// use those indexes in a generic plan too (a parameter in place of the list
// would not prove the index predicate).
package invoicesql

import (
	"fmt"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
)

// InvoiceColumns are the columns of an invoice (alias i) every read
// returns first, in this order. The organization is the statement's
// parameter and deleted_at is NULL for every row a read may return, so
// neither travels.
const InvoiceColumns = "i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at"

// ItemColumns are the columns of an item (alias it) in this order.
const ItemColumns = "it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost"

// PageLimit is the number of rows the page statement reads at most: the
// longest page the API serves (take=10) and one more, which tells whether
// more follow. The limit is a constant, not a parameter, so that the generic
// plan PostgreSQL caches for the statement is costed for a page of rows (a
// LIMIT parameter is costed as a tenth of the organization's invoices, and
// that plan would lose to the custom one every time). A shorter page reads
// the same rows and returns the first take+1.
const PageLimit = 11

// Visible is the predicate of the invoices an organization may see.
var Visible = visible()

func visible() string {
	quoted := make([]string, len(domain.VisibleInvoiceStatuses))
	for i, st := range domain.VisibleInvoiceStatuses {
		quoted[i] = "'" + string(st) + "'"
	}
	return "i.status IN (" + strings.Join(quoted, ", ") + ") AND i.deleted_at IS NULL"
}

// SortColumns are the columns a list may be ordered by.
var SortColumns = []string{"created_at", "updated_at", "due_date"}

// Order is the ORDER BY of a list by column, ties broken by ID in the same
// direction.
func Order(column string, ascending bool) string {
	dir := "DESC"
	if ascending {
		dir = "ASC"
	}
	return fmt.Sprintf("i.%s %s, i.id %s", column, dir, dir)
}

// Page is the statement of one page of a list without a search term,
// ordered by column: InvoiceColumns. Parameters: $1 the organization, then
// the one status to keep when byStatus, then the invoices to skip when
// skip. The page's IDs come from the sort key's index alone (an index-only
// scan: a deep skip walks index entries, not rows), then their rows are
// joined.
//
// The first page has a statement of its own, without OFFSET: PostgreSQL
// costs an OFFSET parameter as a tenth of the rows, so the generic plan of a
// statement with one looks a hundred times dearer than the custom plan of
// the first page, and PostgreSQL plans such a statement anew at every
// execution. Without the parameter it keeps the generic plan after five.
func Page(column string, ascending, byStatus, skip bool) string {
	where, n := "i.organization_id = $1 AND "+Visible, 1
	if byStatus {
		n++
		where += fmt.Sprintf(" AND i.status = $%d", n)
	}
	offset := ""
	if skip {
		n++
		offset = fmt.Sprintf(" OFFSET $%d", n)
	}
	ids := "SELECT i.id FROM invoices AS i WHERE " + where + " ORDER BY " + Order(column, ascending) + offset + fmt.Sprintf(" LIMIT %d", PageLimit)
	return PageOf(ids, column, ascending)
}

// PageOf is the statement reading the invoices whose IDs ids (a statement)
// selects, ordered by column.
func PageOf(ids, column string, ascending bool) string {
	return "SELECT " + InvoiceColumns + " FROM (" + ids + ") AS page JOIN invoices AS i ON i.id = page.id ORDER BY " + Order(column, ascending)
}

// Items is the statement of the items of a page: it.invoice_id, then
// ItemColumns, in invoice and position order. Parameter: $1 the invoices'
// IDs as one text array. A page and its items are two statements: one
// joining them would repeat each invoice's columns on every item's row, and
// decoding those costs the driver more than the second round trip does.
const Items = "SELECT it.invoice_id, " + ItemColumns + " FROM invoice_items AS it WHERE it.invoice_id = ANY($1::text[]) " +
	"ORDER BY it.invoice_id, it.position"

// Detail is the statement of one invoice with its items, in one round
// trip: a first row with InvoiceColumns, then one row per item in position
// order with ItemColumns. Each row has the columns of both, then the item's
// position, and what is not its own is NULL: the invoice's columns travel
// once rather than on each item's row, where the driver would decode them
// again (three timestamps among them). No row when the organization has no
// such visible invoice. Parameters: $1 the organization, $2 the invoice's
// ID. (Both halves look the invoice up by its key: cheaper for PostgreSQL
// than one lookup shared through a WITH query, which it would materialise.)
var Detail = "SELECT " + InvoiceColumns + ", " + nulls(ItemColumns) + ", NULL::integer AS position FROM invoices AS i WHERE " + detailWhere +
	" UNION ALL SELECT " + nulls(InvoiceColumns) + ", " + ItemColumns + ", it.position FROM invoices AS i JOIN invoice_items AS it ON it.invoice_id = i.id WHERE " + detailWhere +
	" ORDER BY position NULLS FIRST"

var detailWhere = "i.organization_id = $1 AND i.id = $2 AND " + Visible

// nulls is a NULL for each of columns.
func nulls(columns string) string {
	return strings.Repeat("NULL, ", Width(columns)-1) + "NULL"
}

// Width is the number of columns in a comma-separated list of them
// (InvoiceColumns, ItemColumns): what a scanner of Detail's rows skips of
// the other's.
func Width(columns string) int {
	return strings.Count(columns, ",") + 1
}
