package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

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

// visibleInvoice is the predicate of the invoices an organization may see
// (invoicing.VisibleInvoiceStatuses, not deleted), on alias i: the literal
// predicate of the partial indexes of migration 0002, so that PostgreSQL
// can use them in the generic plan of a prepared statement too (a parameter
// in place of the list would not prove the index predicate).
const visibleInvoice = `i.status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting') AND i.deleted_at IS NULL`

// invoiceDetailSQL reads one visible invoice with its items in one round
// trip: a first row with the invoice's columns, then one row per item, in
// position order, with the item's; what is not a row's own is NULL, so the
// invoice's columns travel once rather than on each item's row. No row:
// no such visible invoice. (Both halves look the invoice up by its key:
// cheaper for PostgreSQL than one lookup shared through a WITH query, which
// it would materialise.)
const invoiceDetailSQL = `
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

// The invoice list runs one statement per page, chosen by the list's
// order (invoiceLists), search term and status: each reads the page's IDs
// in a subquery, then joins their rows, in the same order. The IDs come
// first, from the sort key's index alone when nothing else filters (an
// index-only scan: a deep skip walks index entries, not rows). Each order
// is its sort key then the ID, in the same direction, and has its partial
// index (organization_id, column, id), and one with status after the
// organization (migration 0002).

// invoiceList is the statements of one order of the list.
type invoiceList struct {
	list, listOfStatus          string // no search term: prepared
	search, contains, shortTerm string // planned for their values at each run
}

// invoiceLists are the list's statements by sort key, descending then
// ascending.
var invoiceLists = map[ports.InvoiceSortKey][2]invoiceList{
	ports.InvoicesByCreatedAt: {
		{listByCreatedAtDescSQL, listOfStatusByCreatedAtDescSQL, searchByCreatedAtDescSQL, containsByCreatedAtDescSQL, shortTermByCreatedAtDescSQL},
		{listByCreatedAtAscSQL, listOfStatusByCreatedAtAscSQL, searchByCreatedAtAscSQL, containsByCreatedAtAscSQL, shortTermByCreatedAtAscSQL},
	},
	ports.InvoicesByUpdatedAt: {
		{listByUpdatedAtDescSQL, listOfStatusByUpdatedAtDescSQL, searchByUpdatedAtDescSQL, containsByUpdatedAtDescSQL, shortTermByUpdatedAtDescSQL},
		{listByUpdatedAtAscSQL, listOfStatusByUpdatedAtAscSQL, searchByUpdatedAtAscSQL, containsByUpdatedAtAscSQL, shortTermByUpdatedAtAscSQL},
	},
	ports.InvoicesByDueDate: {
		{listByDueDateDescSQL, listOfStatusByDueDateDescSQL, searchByDueDateDescSQL, containsByDueDateDescSQL, shortTermByDueDateDescSQL},
		{listByDueDateAscSQL, listOfStatusByDueDateAscSQL, searchByDueDateAscSQL, containsByDueDateAscSQL, shortTermByDueDateAscSQL},
	},
}

// A page without a search term, without and with a status: $1 the
// organization, $2 the invoices to skip, $3 the status. The limit is a
// constant, the longest page the API serves (10) and one more row, which
// tells whether more follow (pageLimit): PostgreSQL costs a LIMIT parameter
// as a tenth of the organization's invoices, and would plan a sort of them
// all.
const pageLimit = 11

// list…SQL: any status.
const (
	listByCreatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY i.created_at DESC, i.id DESC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at DESC, i.id DESC`

	listByCreatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY i.created_at ASC, i.id ASC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at ASC, i.id ASC`

	listByUpdatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY i.updated_at DESC, i.id DESC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at DESC, i.id DESC`

	listByUpdatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY i.updated_at ASC, i.id ASC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at ASC, i.id ASC`

	listByDueDateDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY i.due_date DESC, i.id DESC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date DESC, i.id DESC`

	listByDueDateAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` ORDER BY i.due_date ASC, i.id ASC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date ASC, i.id ASC`
)

// listOfStatus…SQL: status $3.
const (
	listOfStatusByCreatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY i.created_at DESC, i.id DESC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at DESC, i.id DESC`

	listOfStatusByCreatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY i.created_at ASC, i.id ASC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at ASC, i.id ASC`

	listOfStatusByUpdatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY i.updated_at DESC, i.id DESC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at DESC, i.id DESC`

	listOfStatusByUpdatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY i.updated_at ASC, i.id ASC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at ASC, i.id ASC`

	listOfStatusByDueDateDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY i.due_date DESC, i.id DESC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date DESC, i.id DESC`

	listOfStatusByDueDateAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND i.status = $3 ORDER BY i.due_date ASC, i.id ASC OFFSET $2 LIMIT 11) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date ASC, i.id ASC`
)

// invoiceItemsSQL reads the items of a page's invoices, $1 their IDs as
// one array, grouped by invoice in position order. A page and its items are
// two statements: one joining them would repeat each invoice's columns on
// every item's row, and decoding those costs the driver more than the
// second round trip does.
const invoiceItemsSQL = `SELECT it.invoice_id, it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost
FROM invoice_items AS it WHERE it.invoice_id = ANY($1::text[]) ORDER BY it.invoice_id, it.position`

// A page with a search term, or longer than pageLimit allows, planned for
// its values at each run (runner.adHocStatements): the best plan depends on
// the term (the trigram index for a rare one, the ordered index for a
// common one). Parameters: $1 the organization, $2 the invoices to skip,
// $3 the rows to read (take + 1), $4 the status or "", and those of each
// statement.

// search…SQL: no term.
const (
	searchByCreatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
ORDER BY i.created_at DESC, i.id DESC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at DESC, i.id DESC`

	searchByCreatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
ORDER BY i.created_at ASC, i.id ASC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at ASC, i.id ASC`

	searchByUpdatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
ORDER BY i.updated_at DESC, i.id DESC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at DESC, i.id DESC`

	searchByUpdatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
ORDER BY i.updated_at ASC, i.id ASC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at ASC, i.id ASC`

	searchByDueDateDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
ORDER BY i.due_date DESC, i.id DESC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date DESC, i.id DESC`

	searchByDueDateAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
ORDER BY i.due_date ASC, i.id ASC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date ASC, i.id ASC`
)

// contains…SQL: a term whose search_fill is at least a trigram long, $5
// its LIKE pattern on search_fill (fillPattern), $6 the term. The pattern
// looks it up in the trigram index on search_fill (or, when the term is
// common, PostgreSQL walks the ordered index until the page is full, by
// search_fill's statistics); strpos decides exactly: a literal substring,
// so % _ and \ match themselves without escaping. lower() changes nothing
// more on this server's ctype but keeps the match case-insensitive should
// Go's and the database's case mappings ever differ. PostgreSQL has no
// statistics for the strpos expression and estimates that it keeps nearly
// every row, so the row estimate is the pattern's alone, as it should be.
const (
	containsByCreatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
	AND i.search_fill LIKE $5 AND strpos(i.search_text, lower($6)) <> 0
ORDER BY i.created_at DESC, i.id DESC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at DESC, i.id DESC`

	containsByCreatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
	AND i.search_fill LIKE $5 AND strpos(i.search_text, lower($6)) <> 0
ORDER BY i.created_at ASC, i.id ASC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at ASC, i.id ASC`

	containsByUpdatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
	AND i.search_fill LIKE $5 AND strpos(i.search_text, lower($6)) <> 0
ORDER BY i.updated_at DESC, i.id DESC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at DESC, i.id DESC`

	containsByUpdatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
	AND i.search_fill LIKE $5 AND strpos(i.search_text, lower($6)) <> 0
ORDER BY i.updated_at ASC, i.id ASC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at ASC, i.id ASC`

	containsByDueDateDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
	AND i.search_fill LIKE $5 AND strpos(i.search_text, lower($6)) <> 0
ORDER BY i.due_date DESC, i.id DESC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date DESC, i.id DESC`

	containsByDueDateAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (SELECT i.id FROM invoices AS i
WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
	AND i.search_fill LIKE $5 AND strpos(i.search_text, lower($6)) <> 0
ORDER BY i.due_date ASC, i.id ASC OFFSET $2 LIMIT $3) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date ASC, i.id ASC`
)

// shortTerm…SQL: a term the trigram index cannot look up (its search_fill
// is shorter than three characters: one or two characters, or
// punctuation), $5 its LIKE pattern on search_text, $6 its grams as a
// tsquery (gramQuery), $7 the window, $8 the page's take. Two steps:
//
//  1. The first $7 rows of the requested order are checked with LIKE
//     alone. Such terms are mostly common ("pa", "1"): the window then
//     holds the whole page, which is exact because the window is a
//     prefix of the order.
//  2. Only when it does not, the term's grams are looked up in the GIN
//     index on the grams of search_text (gramsMatch), and LIKE decides
//     among the candidates. The one-time filter on w's count skips this
//     step entirely when step 1 filled the page.
//
// Step 1 bounds the work for common terms, step 2 for rare ones; neither
// reads every invoice of the organization. The gram condition stays out
// of step 1: invoice_search_grams is dear per row, and the ordered plan
// would pay it on every match it walks. (LIKE's lower() as in contains's.)
const (
	// gramsMatch: the row holds every gram of $6, by the expression of
	// the gram index (migration 0014): the grams of search_text as the
	// lexemes of a tsvector.
	gramsMatch = `array_to_tsvector(invoice_search_grams(i.search_text)) @@ $6::tsquery`

	shortTermByCreatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (WITH w AS MATERIALIZED (
	SELECT i.id FROM (
		SELECT i.id, i.created_at, i.updated_at, i.due_date, i.search_text FROM invoices AS i
		WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		ORDER BY i.created_at DESC, i.id DESC LIMIT $7
	) AS i
	WHERE i.search_text LIKE lower($5)
	ORDER BY i.created_at DESC, i.id DESC OFFSET $2 LIMIT $3)
SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > $8
UNION ALL
SELECT e.id FROM (
	SELECT i.id FROM invoices AS i
	WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		AND i.search_text LIKE lower($5) AND ` + gramsMatch + `
	ORDER BY i.created_at DESC, i.id DESC OFFSET $2 LIMIT $3
) AS e WHERE (SELECT count(*) FROM w) <= $8) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at DESC, i.id DESC`

	shortTermByCreatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (WITH w AS MATERIALIZED (
	SELECT i.id FROM (
		SELECT i.id, i.created_at, i.updated_at, i.due_date, i.search_text FROM invoices AS i
		WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		ORDER BY i.created_at ASC, i.id ASC LIMIT $7
	) AS i
	WHERE i.search_text LIKE lower($5)
	ORDER BY i.created_at ASC, i.id ASC OFFSET $2 LIMIT $3)
SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > $8
UNION ALL
SELECT e.id FROM (
	SELECT i.id FROM invoices AS i
	WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		AND i.search_text LIKE lower($5) AND ` + gramsMatch + `
	ORDER BY i.created_at ASC, i.id ASC OFFSET $2 LIMIT $3
) AS e WHERE (SELECT count(*) FROM w) <= $8) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.created_at ASC, i.id ASC`

	shortTermByUpdatedAtDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (WITH w AS MATERIALIZED (
	SELECT i.id FROM (
		SELECT i.id, i.created_at, i.updated_at, i.due_date, i.search_text FROM invoices AS i
		WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		ORDER BY i.updated_at DESC, i.id DESC LIMIT $7
	) AS i
	WHERE i.search_text LIKE lower($5)
	ORDER BY i.updated_at DESC, i.id DESC OFFSET $2 LIMIT $3)
SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > $8
UNION ALL
SELECT e.id FROM (
	SELECT i.id FROM invoices AS i
	WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		AND i.search_text LIKE lower($5) AND ` + gramsMatch + `
	ORDER BY i.updated_at DESC, i.id DESC OFFSET $2 LIMIT $3
) AS e WHERE (SELECT count(*) FROM w) <= $8) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at DESC, i.id DESC`

	shortTermByUpdatedAtAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (WITH w AS MATERIALIZED (
	SELECT i.id FROM (
		SELECT i.id, i.created_at, i.updated_at, i.due_date, i.search_text FROM invoices AS i
		WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		ORDER BY i.updated_at ASC, i.id ASC LIMIT $7
	) AS i
	WHERE i.search_text LIKE lower($5)
	ORDER BY i.updated_at ASC, i.id ASC OFFSET $2 LIMIT $3)
SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > $8
UNION ALL
SELECT e.id FROM (
	SELECT i.id FROM invoices AS i
	WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		AND i.search_text LIKE lower($5) AND ` + gramsMatch + `
	ORDER BY i.updated_at ASC, i.id ASC OFFSET $2 LIMIT $3
) AS e WHERE (SELECT count(*) FROM w) <= $8) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.updated_at ASC, i.id ASC`

	shortTermByDueDateDescSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (WITH w AS MATERIALIZED (
	SELECT i.id FROM (
		SELECT i.id, i.created_at, i.updated_at, i.due_date, i.search_text FROM invoices AS i
		WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		ORDER BY i.due_date DESC, i.id DESC LIMIT $7
	) AS i
	WHERE i.search_text LIKE lower($5)
	ORDER BY i.due_date DESC, i.id DESC OFFSET $2 LIMIT $3)
SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > $8
UNION ALL
SELECT e.id FROM (
	SELECT i.id FROM invoices AS i
	WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		AND i.search_text LIKE lower($5) AND ` + gramsMatch + `
	ORDER BY i.due_date DESC, i.id DESC OFFSET $2 LIMIT $3
) AS e WHERE (SELECT count(*) FROM w) <= $8) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date DESC, i.id DESC`

	shortTermByDueDateAscSQL = `
SELECT i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at
FROM (WITH w AS MATERIALIZED (
	SELECT i.id FROM (
		SELECT i.id, i.created_at, i.updated_at, i.due_date, i.search_text FROM invoices AS i
		WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		ORDER BY i.due_date ASC, i.id ASC LIMIT $7
	) AS i
	WHERE i.search_text LIKE lower($5)
	ORDER BY i.due_date ASC, i.id ASC OFFSET $2 LIMIT $3)
SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > $8
UNION ALL
SELECT e.id FROM (
	SELECT i.id FROM invoices AS i
	WHERE i.organization_id = $1 AND ` + visibleInvoice + ` AND ($4 = '' OR i.status = $4)
		AND i.search_text LIKE lower($5) AND ` + gramsMatch + `
	ORDER BY i.due_date ASC, i.id ASC OFFSET $2 LIMIT $3
) AS e WHERE (SELECT count(*) FROM w) <= $8) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY i.due_date ASC, i.id ASC`
)

// Bounds of the window of shortTerm…SQL: ten times the rows the page
// needs, at least shortWindowMin, at most shortWindowMax.
const (
	shortWindowMin = 1_000
	shortWindowMax = 20_000
)

// InvoiceRepository implements ports.InvoiceRepository.
type InvoiceRepository struct {
	run runner
}

var _ ports.InvoiceRepository = (*InvoiceRepository)(nil)

// Get returns a visible invoice of the organization with its items.
func (r *InvoiceRepository) Get(ctx context.Context, organizationID, id string) (*invoicing.Invoice, error) {
	var read []invoiceWithItems
	if err := r.run.query(ctx, invoiceDetailSQL, detailScanner(organizationID, &read), organizationID, id); err != nil {
		return nil, dbErr(err)
	}
	if len(read) == 0 {
		return nil, domain.ErrNotFound
	}
	invs, err := invoicesOf(read[:1])
	if err != nil {
		return nil, err
	}
	return invs[0], nil
}

// List returns one page of the organization's visible invoices matching f,
// ordered by f's key then ID in the same direction (invoiceLists); one row
// more than the page tells whether more follow. The items of the page's
// invoices come in a second statement.
func (r *InvoiceRepository) List(ctx context.Context, organizationID string, f ports.InvoiceFilter, page ports.Page) ([]*invoicing.Invoice, bool, error) {
	stmts := invoiceLists[f.SortBy][0]
	if f.Ascending {
		stmts = invoiceLists[f.SortBy][1]
	}
	run, text, args := r.run, stmts.list, []any{organizationID, page.Skip}
	term := strings.ToLower(f.Search)
	switch pattern := fillPattern(term); {
	case term == "" && page.Take < pageLimit && f.Status == "":
	case term == "" && page.Take < pageLimit:
		text, args = stmts.listOfStatus, append(args, string(f.Status))
	default:
		run, text = run.adHocStatements(), stmts.search
		args = append(args, page.Take+1, string(f.Status))
		switch {
		case pattern != "":
			text, args = stmts.contains, append(args, pattern, term)
		case term != "":
			need := page.Skip + page.Take + 1
			window := min(max(10*need, shortWindowMin), shortWindowMax)
			text, args = stmts.shortTerm, append(args, "%"+escapeLike(term)+"%", gramQuery(term), window, page.Take)
		}
	}
	read := make([]invoiceWithItems, 0, max(page.Take+1, pageLimit))
	if err := run.query(ctx, text, pageScanner(organizationID, &read), args...); err != nil {
		return nil, false, dbErr(err)
	}
	read, more := trimPage(read, page)
	if len(read) > 0 {
		ids := make([]string, len(read))
		for i, inv := range read {
			ids[i] = inv.row.ID
		}
		items := pageItems{page: read, all: make([]invoiceItemRow, 0, 4*len(read))}
		if err := r.run.query(ctx, invoiceItemsSQL, items.scan, pgArray(ids)); err != nil {
			return nil, false, dbErr(err)
		}
		items.assign()
	}
	out, err := invoicesOf(read)
	return out, more, err
}

// invoiceWithItems is an invoice read with its items.
type invoiceWithItems struct {
	row   invoiceRow
	items []invoiceItemRow
}

// The scanners read rows with explicit destinations instead of bun's
// reflection over a model.

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
