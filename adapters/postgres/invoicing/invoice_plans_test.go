package invoicing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// invOracle answers a list query in Go from the invoices written: the
// reference the database's answers are checked against.
func invOracle(invs []*invoicing.Invoice, org string, f invoicingports.InvoiceFilter, p ports.Page) ([]string, bool) {
	term := strings.ToLower(f.Search)
	var keep []*invoicing.Invoice
	for _, inv := range invs {
		fields := []string{inv.ID(), inv.Key(), inv.Name(), inv.Notes()}
		for _, it := range inv.Items() {
			fields = append(fields, it.Title(), it.Description())
		}
		if inv.OrganizationID() == org && inv.Visible() && (f.Status == "" || inv.Status() == f.Status) &&
			strings.Contains(strings.ToLower(strings.Join(fields, "\n")), term) {
			keep = append(keep, inv)
		}
	}
	key := func(inv *invoicing.Invoice) time.Time {
		switch f.SortBy {
		case invoicingports.InvoicesByUpdatedAt:
			return inv.UpdatedAt()
		case invoicingports.InvoicesByDueDate:
			return inv.DueDate()
		}
		return inv.CreatedAt()
	}
	slices.SortFunc(keep, func(x, y *invoicing.Invoice) int {
		c := key(x).Compare(key(y))
		if c == 0 {
			c = strings.Compare(x.ID(), y.ID())
		}
		if !f.Ascending {
			c = -c
		}
		return c
	})
	ids := invIDs(keep)
	if p.Skip >= len(ids) {
		return []string{}, false
	}
	end := min(p.Skip+p.Take, len(ids))
	return ids[p.Skip:end], end < len(ids)
}

// planNode is the part of EXPLAIN (FORMAT JSON) the plan test reads.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	Plans        []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// TestInvoiceQueryPlansUseIndexes loads a few thousand invoices, runs every
// query shape of the list and the detail through the repository, and fails
// when PostgreSQL plans a sequential scan of invoices or invoice_items for
// any of the statements sent. Sequential scans are not disabled: the plans
// are the planner's own choice with fresh statistics.
func TestInvoiceQueryPlansUseIndexes(t *testing.T) {
	db, rec := pgtest.OpenRecording(testDSN)
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	const org, other = "org_inv_plan", "org_inv_plan_x"
	words := []string{"pallet storage", "pick & pack", "shipping label UPS Ground", "returns processing", "kitting",
		"receiving per carton", "labour hours", "packaging materials", "bin storage", "account fee"}
	cities := []string{"Newark", "Reno", "Dallas", "Chicago", "Atlanta", "Portland", "Denver", "Phoenix"}
	var specs []invSpec
	for i := range 4000 {
		o := org
		if i%4 == 3 {
			o = other
		}
		st := invoicing.VisibleInvoiceStatuses[(i*7)%len(invoicing.VisibleInvoiceStatuses)]
		if i%20 == 0 {
			st = invoicing.InvoiceDraft
		}
		city := cities[i%len(cities)]
		if i%997 == 0 {
			city = "Anchorage"
		}
		var items [][2]string
		for j := range 1 + i%5 {
			w := words[(i+j*3)%len(words)]
			items = append(items, [2]string{w, fmt.Sprintf("%d units, order #%d to %s", 1+(i*j)%40, 1_000_000+i*37+j, city)})
		}
		notes := ""
		if i < 60 { // a short term found only far beyond the newest invoices
			notes = "Rabatt ß"
		}
		specs = append(specs, invSpec{
			id: fmt.Sprintf("inv-plan-%05d", i), org: o, status: st, deleted: i%33 == 0, notes: notes,
			name:    fmt.Sprintf("%s — week %d", words[i%len(words)], i%52),
			created: invT0.Add(time.Duration(i) * 17 * time.Minute), updated: invT0.Add(time.Duration(i)*17*time.Minute + time.Duration(i%90)*time.Hour),
			due: invT0.AddDate(0, 0, 30+i/40), items: items,
		})
	}
	invs := invSeed(t, db, []string{org, other}, specs...)
	if _, err := db.ExecContext(ctx, "ANALYZE invoices, invoice_items"); err != nil {
		t.Fatal(err)
	}

	rec.Take()
	repo := invRepo(db)
	type shape struct {
		name   string
		filter invoicingports.InvoiceFilter
		page   ports.Page
	}
	shapes := []shape{{name: "default"}, {name: "deep skip", page: ports.Page{Skip: 1000}},
		{name: "search common", filter: invoicingports.InvoiceFilter{Search: "storage"}},
		{name: "search rare", filter: invoicingports.InvoiceFilter{Search: "anchorage"}},
		{name: "search no match", filter: invoicingports.InvoiceFilter{Search: "xylophone"}},
		{name: "search short common", filter: invoicingports.InvoiceFilter{Search: "pa"}},
		{name: "search short rare", filter: invoicingports.InvoiceFilter{Search: "ø"}},
		{name: "search punctuation", filter: invoicingports.InvoiceFilter{Search: "#1"}},
		{name: "search short common, skip", filter: invoicingports.InvoiceFilter{Search: "pa"}, page: ports.Page{Skip: 80}},
		{name: "search short, old invoices only", filter: invoicingports.InvoiceFilter{Search: "ß"}},
		{name: "search short, old invoices only, asc", filter: invoicingports.InvoiceFilter{Search: "ß", Ascending: true, SortBy: invoicingports.InvoicesByDueDate}, page: ports.Page{Skip: 5}},
		{name: "search short + status", filter: invoicingports.InvoiceFilter{Search: "ß", Status: invoicing.InvoiceCancelled}},
		{name: "search rare + status", filter: invoicingports.InvoiceFilter{Search: "anchorage", Status: invoicing.InvoicePaid}},
		{name: "search common + sort", filter: invoicingports.InvoiceFilter{Search: "storage", SortBy: invoicingports.InvoicesByDueDate, Ascending: true}},
		{name: "search common words never together", filter: invoicingports.InvoiceFilter{Search: "storage kitting"}},
		{name: "search common phrase", filter: invoicingports.InvoiceFilter{Search: "pallet storage"}},
		{name: "search words and punctuation", filter: invoicingports.InvoiceFilter{Search: "units, order #1000"}},
		{name: "search rare phrase", filter: invoicingports.InvoiceFilter{Search: "to anchorage"}},
	}
	for _, st := range invoicing.VisibleInvoiceStatuses {
		shapes = append(shapes, shape{name: "status " + string(st), filter: invoicingports.InvoiceFilter{Status: st}})
	}
	for _, by := range []invoicingports.InvoiceSortKey{invoicingports.InvoicesByCreatedAt, invoicingports.InvoicesByUpdatedAt, invoicingports.InvoicesByDueDate} {
		for _, asc := range []bool{false, true} {
			shapes = append(shapes, shape{name: fmt.Sprintf("sort %s asc=%v", by, asc), filter: invoicingports.InvoiceFilter{SortBy: by, Ascending: asc}},
				shape{name: fmt.Sprintf("status + sort %s asc=%v", by, asc), filter: invoicingports.InvoiceFilter{SortBy: by, Ascending: asc, Status: invoicing.InvoiceRefunded}})
		}
	}
	statements := map[string][]pgtest.Statement{}
	for _, sh := range shapes {
		if sh.page.Take == 0 {
			sh.page.Take = 10
		}
		got, more, err := repo.List(ctx, org, sh.filter, sh.page)
		if err != nil {
			t.Fatalf("%s: %v", sh.name, err)
		}
		statements[sh.name] = rec.Take()
		if want, wantMore := invOracle(invs, org, sh.filter, sh.page); !slices.Equal(invIDs(got), want) || more != wantMore {
			t.Errorf("%s: %v (more %v), want %v (more %v)", sh.name, invIDs(got), more, want, wantMore)
		}
		if sh.name == "default" {
			if _, err := repo.Get(ctx, org, got[0].ID()); err != nil {
				t.Fatal(err)
			}
			statements["detail"] = rec.Take()
		}
	}
	for name, sqls := range statements {
		if len(sqls) == 0 {
			t.Fatalf("%s: no statement recorded", name)
		}
		for _, st := range sqls {
			sql := st.SQL
			var raw []byte
			if err := db.DB.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+sql, st.Args...).Scan(&raw); err != nil {
				t.Fatalf("%s: explain: %v\n%s", name, err, sql)
			}
			var plans []struct{ Plan planNode }
			if err := json.Unmarshal(raw, &plans); err != nil || len(plans) != 1 {
				t.Fatalf("%s: read plan: %v", name, err)
			}
			var indexes []string
			plans[0].Plan.walk(func(n planNode) {
				if n.NodeType == "Seq Scan" && (n.RelationName == "invoices" || n.RelationName == "invoice_items") {
					t.Errorf("%s: sequential scan of %s:\n%s\n%s", name, n.RelationName, sql, raw)
				}
				if n.IndexName != "" {
					indexes = append(indexes, n.IndexName)
				}
			})
			if len(indexes) == 0 {
				t.Errorf("%s: no index used:\n%s\n%s", name, sql, raw)
			}
			// A rare short term's candidates come from the gram index.
			if name == "search short rare" && !slices.Contains(indexes, "invoices_search_grams_idx") {
				t.Errorf("%s: the gram index is not used:\n%s\n%s", name, sql, raw)
			}
		}
	}
	// The statements the service prepares are planned once per connection
	// and their generic plan reused for any parameters: no sequential scan
	// there either.
	for _, sql := range pginvoicing.ReadStatements() {
		// The arguments by what each placeholder stands for.
		var args []string
		for n := 1; strings.Contains(sql, fmt.Sprintf("$%d", n)); n++ {
			switch p := fmt.Sprintf("$%d", n); {
			case strings.Contains(sql, "ANY("+p):
				args = append(args, "'{inv-plan-00001,inv-plan-00002}'")
			case strings.Contains(sql, "organization_id = "+p):
				args = append(args, "'"+org+"'")
			case strings.Contains(sql, "i.id = "+p):
				args = append(args, "'inv-plan-00001'")
			case strings.Contains(sql, "i.status = "+p):
				args = append(args, "'refunded'")
			case strings.Contains(sql, "OFFSET "+p):
				args = append(args, "1000")
			default:
				t.Fatalf("what does %s stand for in %s", p, sql)
			}
		}
		// A page's generic plan must walk the list index in order and stop:
		// estimated for the average organization, a plan that sorts the
		// organization's invoices would read all of a large one's.
		ordered := !strings.Contains(sql, "LIMIT")
		explainGeneric(ctx, t, testDSN, sql, args...).walk(func(n planNode) {
			if n.NodeType == "Seq Scan" && (n.RelationName == "invoices" || n.RelationName == "invoice_items") {
				t.Errorf("generic plan: sequential scan of %s:\n%s", n.RelationName, sql)
			}
			ordered = ordered || n.NodeType == "Index Only Scan" && strings.HasPrefix(n.IndexName, "invoices_list_")
		})
		if !ordered {
			t.Errorf("generic plan of a page without an index-only scan of a list index:\n%s", sql)
		}
	}
}
