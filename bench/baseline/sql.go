package main

import "strings"

// The SQL of the service's invoice list without a search term and of its
// detail (adapters/postgres/invoices.go), written out again: both servers
// ask PostgreSQL the same thing, with the same session setting
// (plan_cache_mode, in run), so that the benchmark compares the stacks
// around it.

// visibleInvoice restricts to the invoices an organization may see.
const visibleInvoice = `i.status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting') AND i.deleted_at IS NULL`

// pageSQL reads a page: {ids} selects the IDs, in {order}.
const pageSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM ({ids}) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY {order}`

// The IDs of a page: $1 the organization, $2 the invoices to skip, $3 the
// status; at most maxTake + 1 rows.
const (
	idsSQL         = `SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY {order} OFFSET $2 LIMIT 11`
	idsOfStatusSQL = `SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY {order} OFFSET $2 LIMIT 11`
)

// itemsSQL reads the items of a page's invoices ($1), grouped by invoice.
const itemsSQL = `SELECT it.invoice_id, it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost
FROM invoice_items AS it WHERE it.invoice_id = ANY($1::text[]) ORDER BY it.invoice_id, it.position`

// detailSQL reads invoice $2 of organization $1: the invoice's columns on
// the first row, an item's on each later one, NULL the rest.
const detailSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL::integer AS position
FROM invoices AS i
WHERE i.organization_id = $1 AND i.id = $2 AND ` + visibleInvoice + `
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost, it.position
FROM invoices AS i JOIN invoice_items AS it ON it.invoice_id = i.id
WHERE i.organization_id = $1 AND i.id = $2 AND ` + visibleInvoice + `
ORDER BY position NULLS FIRST`

// orders are the list's orders by sort column, descending then ascending.
var orders = map[string][2]string{
	"created_at": {"i.created_at DESC, i.id DESC", "i.created_at ASC, i.id ASC"},
	"updated_at": {"i.updated_at DESC, i.id DESC", "i.updated_at ASC, i.id ASC"},
	"due_date":   {"i.due_date DESC, i.id DESC", "i.due_date ASC, i.id ASC"},
}

// listSQL is the page statement of a list ordered by column, of one status
// when byStatus.
func listSQL(column string, ascending, byStatus bool) string {
	order := orders[column][0]
	if ascending {
		order = orders[column][1]
	}
	ids := idsSQL
	if byStatus {
		ids = idsOfStatusSQL
	}
	return strings.ReplaceAll(strings.Replace(pageSQL, "{ids}", ids, 1), "{order}", order)
}
