package postgres

import (
	"context"
	"database/sql"
	"strings"
	"time"
	"unicode"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"

	"github.com/acme3pl/fulfillment/adapters/postgres/invoicesql"
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

// invoiceSearchText is the one lower-cased text the invoice search (docs/invoices.md)
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
		Where("i.status IN (?)", bun.List(domain.VisibleInvoiceStatuses)).
		Where("i.deleted_at IS NULL")
}

// InvoiceRepository implements ports.InvoiceRepository.
type InvoiceRepository struct {
	db    bun.IDB
	reads *statements // the pool's prepared reads (reads.go); nil: none
}

var _ ports.InvoiceRepository = (*InvoiceRepository)(nil)

// runner runs the read statements, prepared when the repository's pool has
// prepared them.
func (r *InvoiceRepository) runner(ctx context.Context) runner {
	return runner{db: r.db, prepared: r.reads.get(ctx)}
}

// Get returns a visible invoice of the organization with its items.
func (r *InvoiceRepository) Get(ctx context.Context, organizationID, id string) (*domain.Invoice, error) {
	var read []invoiceWithItems
	if err := r.runner(ctx).read(ctx, invoiceDetailQuery, detailScanner(organizationID, &read), organizationID, id); err != nil {
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

// sortColumns maps the sort keys of the port to columns; each has a partial
// index (organization_id, column, id) and one with status after the
// organization (migration 0002).
var sortColumns = map[ports.InvoiceSortKey]string{
	"":                        "created_at",
	ports.InvoicesByCreatedAt: "created_at",
	ports.InvoicesByUpdatedAt: "updated_at",
	ports.InvoicesByDueDate:   "due_date",
}

// List returns one page of the organization's visible invoices matching f,
// ordered by f's key then ID in the same direction. The page's IDs are
// found first, from the sort key's index alone when nothing else filters
// (an index-only scan: a deep skip walks index entries, not rows), then
// joined to their rows; one row more than the page tells whether more
// follow. The items of the page's invoices come in a second statement.
// Without a search term the page is one of the prepared statements of
// invoicesql; with one it is built here, for the term.
func (r *InvoiceRepository) List(ctx context.Context, organizationID string, f ports.InvoiceFilter, page ports.Page) ([]*domain.Invoice, bool, error) {
	col, ok := sortColumns[f.SortBy]
	if !ok {
		return nil, false, domain.Invalid("sortBy", "%q is not a sort key", f.SortBy)
	}
	run := r.runner(ctx)
	read := make([]invoiceWithItems, 0, max(page.Take+1, invoicesql.PageLimit))
	scan := pageScanner(organizationID, &read)
	var err error
	if f.Search == "" && page.Take < invoicesql.PageLimit {
		q := invoicePageQueries[pageKey{col, f.Ascending, f.Status != "", page.Skip > 0}]
		args := []any{organizationID}
		if f.Status != "" {
			args = append(args, string(f.Status))
		}
		if page.Skip > 0 {
			args = append(args, page.Skip)
		}
		err = run.read(ctx, q, scan, args...)
	} else {
		err = r.searchPage(ctx, organizationID, f, col, page, scan)
	}
	if err != nil {
		return nil, false, dbErr(err)
	}
	read, more := trimPage(read, page)
	if len(read) > 0 {
		ids := make([]string, len(read))
		for i, inv := range read {
			ids[i] = inv.row.ID
		}
		items := pageItems{page: read, all: make([]invoiceItemRow, 0, 4*len(read))}
		if err := run.read(ctx, invoiceItemsQuery, items.scan, pgTextArray(ids)); err != nil {
			return nil, false, dbErr(err)
		}
		items.assign()
	}
	out, err := invoicesOf(read)
	return out, more, err
}

// searchPage reads a page with a search term (or longer than
// invoicesql.PageLimit allows) into scan, formatted by bun for the term.
func (r *InvoiceRepository) searchPage(ctx context.Context, organizationID string, f ports.InvoiceFilter, col string,
	page ports.Page, scan func(*sql.Rows) error,
) error {
	// col comes from the closed set above, never from the request.
	order := invoicesql.Order(col, f.Ascending)
	filtered := func(columns ...string) *bun.SelectQuery {
		q := visibleInvoices(r.db.NewSelect().TableExpr("invoices AS i").Column(columns...), organizationID)
		if f.Status != "" {
			q = q.Where("i.status = ?", string(f.Status))
		}
		return q
	}
	term := strings.ToLower(f.Search)
	var ids schema.QueryAppender
	switch pattern := fillPattern(term); {
	case term == "":
		ids = filtered("i.id").OrderExpr(order).Offset(page.Skip).Limit(page.Take + 1)
	case pattern != "":
		ids = whereContains(filtered("i.id"), term, pattern).OrderExpr(order).Offset(page.Skip).Limit(page.Take + 1)
	default:
		ids = shortTermIDs(r.db, filtered, col, order, term, shortGrams(term), page)
	}
	// bun formats the IDs' statement into the page's placeholder.
	rows, err := r.db.QueryContext(ctx, invoicesql.PageOf("?", col, f.Ascending), ids)
	if err != nil {
		return err
	}
	return scanAll(rows, scan)
}

// whereLike keeps invoices whose search_text contains term, which is
// lower-cased already (the short-term path; whereContains serves the
// others). search_text is lowered by strings.ToLower (invoiceSearchText) and
// so is the term; lower() in SQL changes nothing more on this server's ctype
// but keeps the match case-insensitive should Go's and the database's case
// mappings ever differ for a character.
func whereLike(q *bun.SelectQuery, term string) *bun.SelectQuery {
	return q.Where("i.search_text LIKE lower(?)", "%"+escapeLike(term)+"%")
}

// Bounds of the window of shortTermIDs: ten times the rows the page needs,
// at least shortWindowMin, at most shortWindowMax.
const (
	shortWindowMin = 1_000
	shortWindowMax = 20_000
)

// shortTermIDs finds the page's IDs for a term the trigram index cannot
// look up (its search_fill is shorter than three characters: one or two
// characters, or punctuation), in one statement of two steps:
//
//  1. The first rows of the requested order (a window of ten times the rows
//     the page needs) are checked with LIKE alone. Such terms are mostly
//     common ("pa", "1"): the window then holds the whole page, which is
//     exact because the window is a prefix of the order.
//  2. Only when it does not, the term's grams are looked up in the GIN index
//     on invoice_search_grams(search_text), and LIKE decides among the
//     candidates. The statement's one-time filter skips this step entirely
//     when step 1 filled the page.
//
// Step 1 bounds the work for common terms, step 2 for rare ones; neither
// reads every invoice of the organization. Keeping the gram condition out of
// step 1 matters: evaluating invoice_search_grams on a row costs about
// 0.1 ms, which the planner's ordered plan would pay on every match it walks.
func shortTermIDs(db bun.IDB, filtered func(columns ...string) *bun.SelectQuery, col, order, term string,
	grams []string, page ports.Page,
) schema.QueryAppender {
	need := page.Skip + page.Take + 1
	window := min(max(10*need, shortWindowMin), shortWindowMax)
	head := filtered("i.id", "i."+col, "i.search_text").OrderExpr(order).Limit(window)
	inWindow := whereLike(db.NewSelect().TableExpr("(?) AS i", head).Column("i.id"), term).
		OrderExpr(order).Offset(page.Skip).Limit(page.Take + 1)
	everywhere := whereLike(filtered("i.id"), term).
		Where("invoice_search_grams(i.search_text) @> ?", pgdialect.Array(grams)).
		OrderExpr(order).Offset(page.Skip).Limit(page.Take + 1)
	return db.NewRaw(`WITH w AS MATERIALIZED (?)
		SELECT w.id FROM w WHERE (SELECT count(*) FROM w) > ?
		UNION ALL
		SELECT e.id FROM (?) AS e WHERE (SELECT count(*) FROM w) <= ?`,
		inWindow, page.Take, everywhere, page.Take)
}

// escapeLike makes %, _ and the escape character \ match themselves in a
// LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// shortGrams returns the grams of term to look up in the gram index: the
// term's distinct two-character grams, or its characters when it has none.
// Grams with a control character are left out: invoice_search_grams cuts the
// text at U+001F, so it may lack them, and the use case refuses such terms
// anyway. Every other gram of a substring is among the text's, so the lookup
// never loses a match.
func shortGrams(term string) []string {
	runes := []rune(term)
	seen := map[string]bool{}
	var grams []string
	add := func(g string) {
		if !seen[g] && strings.IndexFunc(g, unicode.IsControl) < 0 {
			seen[g] = true
			grams = append(grams, g)
		}
	}
	for i := 0; i+1 < len(runes); i++ {
		add(string(runes[i : i+2]))
	}
	if len(grams) == 0 {
		for _, c := range runes {
			add(string(c))
		}
	}
	return grams
}
