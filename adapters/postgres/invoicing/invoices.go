package invoicing

import (
	"context"
	"strings"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// visibleStatuses is the domain's list of the statuses an organization may
// see (invoicing.VisibleInvoiceStatuses) as SQL literals, written into the
// statements' text: the literal predicate of the partial indexes of
// migration 0002, so that PostgreSQL can use them in the generic plan of a
// prepared statement too (a parameter in place of the list would not prove
// the index predicate).
var visibleStatuses = sqlLiterals(invoicing.VisibleInvoiceStatuses)

// visibleInvoice is the predicate of the invoices an organization may see
// (of a visible status, not deleted), on alias i.
var visibleInvoice = `i.status IN (` + visibleStatuses + `) AND i.deleted_at IS NULL`

// sqlLiterals is values as a comma-separated list of SQL string literals.
func sqlLiterals[S ~string](values []S) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
	}
	return strings.Join(quoted, ", ")
}

// invoiceDetailSQL reads one visible invoice with its items in one round
// trip: a first row with the invoice's columns, then one row per item, in
// position order, with the item's; what is not a row's own is NULL, so the
// invoice's columns travel once rather than on each item's row. No row:
// no such visible invoice. (Both halves look the invoice up by its key:
// cheaper for PostgreSQL than one lookup shared through a WITH query, which
// it would materialise.)
var invoiceDetailSQL = postgres.SQLSelect(`
SELECT ` + invoiceColumns + `,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL::integer AS position
FROM invoices AS i
WHERE i.organization_id = $1 AND i.id = $2 AND ` + visibleInvoice + `
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost, it.position
FROM invoices AS i JOIN invoice_items AS it ON it.invoice_id = i.id
WHERE i.organization_id = $1 AND i.id = $2 AND ` + visibleInvoice + `
ORDER BY position NULLS FIRST`)

// The invoice list runs one statement per page, chosen by the list's
// order (invoiceLists), search term and status: each reads the page's IDs
// in a subquery (listed), then joins their rows, in the same order. The
// IDs come first, from the sort key's index alone when nothing else
// filters (an index-only scan: a deep skip walks index entries, not rows).
// Each order is its sort key then the ID, in the same direction, and has
// its partial index (organization_id, column, id), and one with status
// after the organization (migration 0002). The five statements of an order
// are its order in the same five texts, each written once for every order:
// the two prepared pages and the three searches, by invoiceListOf. The 30
// statements, as they run: testdata/statements.golden (a test keeps it
// current; bench/baseline holds its copies to it).

// invoiceList is the statements of one order of the list.
type invoiceList struct {
	list, listOfStatus          postgres.Statement // no search term: prepared
	search, contains, shortTerm postgres.Statement // planned for their values at each run
}

// invoiceLists are the list's statements by sort key, descending then
// ascending.
var invoiceLists = map[invoicingports.InvoiceSortKey][2]invoiceList{
	invoicingports.InvoicesByCreatedAt: {
		invoiceListOf(byCreatedAtDesc),
		invoiceListOf(byCreatedAtAsc),
	},
	invoicingports.InvoicesByUpdatedAt: {
		invoiceListOf(byUpdatedAtDesc),
		invoiceListOf(byUpdatedAtAsc),
	},
	invoicingports.InvoicesByDueDate: {
		invoiceListOf(byDueDateDesc),
		invoiceListOf(byDueDateAsc),
	},
}

// The list's orders: a sort key then the ID, in the same direction.
const (
	byCreatedAtDesc = `i.created_at DESC, i.id DESC`
	byCreatedAtAsc  = `i.created_at ASC, i.id ASC`
	byUpdatedAtDesc = `i.updated_at DESC, i.id DESC`
	byUpdatedAtAsc  = `i.updated_at ASC, i.id ASC`
	byDueDateDesc   = `i.due_date DESC, i.id DESC`
	byDueDateAsc    = `i.due_date ASC, i.id ASC`
)

// The parts of the list's statements, on alias i.
const (
	// invoiceColumns are the invoice's columns every read returns, in
	// scanInvoice's order.
	invoiceColumns = `i.id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount, i.created_at, i.updated_at`

	// ofStatusOrAny: of status $4, or of any when $4 is "".
	ofStatusOrAny = ` AND ($4 = '' OR i.status = $4)`
)

// ofOrganization: the visible invoices of organization $1.
var ofOrganization = `i.organization_id = $1 AND ` + visibleInvoice

// Every list statement is pageOf + the subquery of the page's IDs +
// pageJoin + its order: the page of the invoices whose IDs the subquery
// reads, in that order.
const (
	pageOf = `
SELECT ` + invoiceColumns + `
FROM (`
	pageJoin = `) AS page JOIN invoices AS i ON i.id = page.id
ORDER BY `
)

// A page without a search term, without and with a status: $1 the
// organization, $2 the invoices to skip, $3 the status. The limit is a
// constant, the longest page the API serves (10) and one more row, which
// tells whether more follow (pageLimit): PostgreSQL costs a LIMIT parameter
// as a tenth of the organization's invoices, and would plan a sort of them
// all.
const pageLimit = 11

// The prepared pages (invoiceListOf): the IDs of the page, of any status
// or of status $3, in the order, then firstPage.
var (
	firstIDs         = `SELECT i.id FROM invoices AS i WHERE ` + ofOrganization
	firstIDsOfStatus = firstIDs + ` AND i.status = $3`
)

const firstPage = ` OFFSET $2 LIMIT 11` // pageLimit

// A page with a search term, or longer than pageLimit allows, planned for
// its values at each run (postgres.Runner.AdHoc): the best plan depends on
// the term (the trigram index for a rare one, the ordered index for a
// common one). Parameters: $1 the organization, $2 the invoices to skip,
// $3 the rows to read (take + 1), $4 the status or "", and those of each
// statement:
//
//   - search: no term.
//
//   - contains: a term whose search_fill is at least a trigram long, $5
//     its LIKE pattern on search_fill (fillPattern), $6 the term. The
//     pattern looks it up in the trigram index on search_fill (or, when the
//     term is common, PostgreSQL walks the ordered index until the page is
//     full, by search_fill's statistics); strpos decides exactly: a literal
//     substring, so % _ and \ match themselves without escaping. lower()
//     changes nothing more on this server's ctype but keeps the match
//     case-insensitive should Go's and the database's case mappings ever
//     differ. PostgreSQL has no statistics for the strpos expression and
//     estimates that it keeps nearly every row, so the row estimate is the
//     pattern's alone, as it should be.
//
//   - shortTerm: a term the trigram index cannot look up (its search_fill
//     is shorter than three characters: one or two characters, or
//     punctuation), $5 its LIKE pattern on search_text, $6 its grams as a
//     tsquery (gramQuery), $7 the window, $8 the page's take. Two steps:
//
//     1. The first $7 rows of the requested order are checked with LIKE
//     alone. Such terms are mostly common ("pa", "1"): the window then
//     holds the whole page, which is exact because the window is a
//     prefix of the order.
//     2. Only when it does not, the term's grams are looked up in the GIN
//     index on the grams of search_text (gramsMatch), and LIKE decides
//     among the candidates. The one-time filter on w's count skips this
//     step entirely when step 1 filled the page.
//
//     Step 1 bounds the work for common terms, step 2 for rare ones;
//     neither reads every invoice of the organization. The gram condition
//     stays out of step 1: invoice_search_grams is dear per row, and the
//     ordered plan would pay it on every match it walks. (LIKE's lower() as
//     in contains.)
//
// invoiceListOf is the statements of one order: its two prepared pages
// and its three searches.
func invoiceListOf(order string) invoiceList {
	page := func(ids string) postgres.SQLSelect { return postgres.SQLSelect(pageOf + ids + pageJoin + order) }
	return invoiceList{
		list:         page(firstIDs + ` ORDER BY ` + order + firstPage),
		listOfStatus: page(firstIDsOfStatus + ` ORDER BY ` + order + firstPage),
		search: page(`SELECT i.id FROM invoices AS i
WHERE ` + ofOrganization + ofStatusOrAny + `
ORDER BY ` + order + ` OFFSET $2 LIMIT $3`),
		contains: page(`SELECT i.id FROM invoices AS i
WHERE ` + ofOrganization + ofStatusOrAny + `
	AND i.search_fill LIKE $5 AND strpos(i.search_text, lower($6)) <> 0
ORDER BY ` + order + ` OFFSET $2 LIMIT $3`),
		shortTerm: page(`WITH w AS MATERIALIZED (
	SELECT i.id FROM (
		SELECT i.id, i.created_at, i.updated_at, i.due_date, i.search_text FROM invoices AS i
		WHERE ` + ofOrganization + ofStatusOrAny + `
		ORDER BY ` + order + ` LIMIT $7
	) AS i
	WHERE i.search_text LIKE lower($5)
	ORDER BY ` + order + ` OFFSET $2 LIMIT $3)
SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > $8
UNION ALL
SELECT e.id FROM (
	SELECT i.id FROM invoices AS i
	WHERE ` + ofOrganization + ofStatusOrAny + `
		AND i.search_text LIKE lower($5) AND ` + gramsMatch + `
	ORDER BY ` + order + ` OFFSET $2 LIMIT $3
) AS e WHERE (SELECT count(*) FROM w) <= $8`),
	}
}

// gramsMatch: the row holds every gram of $6, by the expression of the
// gram index (migration 0014): the grams of search_text as the lexemes of
// a tsvector.
const gramsMatch = `array_to_tsvector(invoice_search_grams(i.search_text)) @@ $6::tsquery`

// invoiceItemsSQL reads the items of a page's invoices, $1 their IDs as
// one array, grouped by invoice in position order. A page and its items are
// two statements: one joining them would repeat each invoice's columns on
// every item's row, and decoding those costs the driver more than the
// second round trip does.
const invoiceItemsSQL postgres.SQLSelect = `SELECT it.invoice_id, it.id, it.title, it.description, it.quantity, it.unit_cost, it.total_cost
FROM invoice_items AS it WHERE it.invoice_id = ANY($1::text[]) ORDER BY it.invoice_id, it.position`

// Bounds of the window of the shortTerm statements: ten times the rows the
// page needs, at least shortWindowMin, at most shortWindowMax.
const (
	shortWindowMin = 1_000
	shortWindowMax = 20_000
)

// InvoiceRepository implements invoicingports.InvoiceRepository.
type InvoiceRepository struct {
	run postgres.Runner
}

var _ invoicingports.InvoiceRepository = (*InvoiceRepository)(nil)

// Get returns a visible invoice of the organization with its items.
func (r *InvoiceRepository) Get(ctx context.Context, organizationID, id string) (*invoicing.Invoice, error) {
	var read []invoiceWithItems
	if err := r.run.Query(ctx, invoiceDetailSQL, detailScanner(organizationID, &read), organizationID, id); err != nil {
		return nil, postgres.DBErr(err)
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
func (r *InvoiceRepository) List(ctx context.Context, organizationID string, f invoicingports.InvoiceFilter, page ports.Page) ([]*invoicing.Invoice, bool, error) {
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
		run, text = run.AdHoc(), stmts.search
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
	if err := run.Query(ctx, text, pageScanner(organizationID, &read), args...); err != nil {
		return nil, false, postgres.DBErr(err)
	}
	read, more := postgres.TrimPage(read, page)
	if len(read) > 0 {
		ids := make([]string, len(read))
		for i, inv := range read {
			ids[i] = inv.row.ID
		}
		items := pageItems{page: read, all: make([]invoiceItemRow, 0, 4*len(read))}
		if err := r.run.Query(ctx, invoiceItemsSQL, items.scan, postgres.Array(ids)); err != nil {
			return nil, false, postgres.DBErr(err)
		}
		items.assign()
	}
	out, err := invoicesOf(read)
	return out, more, err
}
