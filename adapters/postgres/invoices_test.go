package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

// invSpec describes a test invoice; zero fields get defaults in invBuild.
type invSpec struct {
	id, org, key, name, notes string
	status                    invoicing.InvoiceStatus
	created, updated, due     time.Time
	deleted                   bool
	items                     [][2]string // title, description
}

var invT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func invBuild(t testing.TB, s invSpec) *invoicing.Invoice {
	t.Helper()
	if s.key == "" {
		s.key = "KEY-" + s.id
	}
	if s.status == "" {
		s.status = invoicing.InvoicePaid
	}
	if s.name == "" {
		s.name = "Invoice " + s.id
	}
	if s.created.IsZero() {
		s.created = invT0
	}
	if s.updated.IsZero() {
		s.updated = s.created
	}
	if s.due.IsZero() {
		s.due = s.created.AddDate(0, 0, 30)
	}
	if s.items == nil {
		s.items = [][2]string{{"Pallet storage", "2 pallets × 31 days"}}
	}
	p := invoicing.InvoiceParams{
		ID: s.id, OrganizationID: s.org, Key: s.key, Status: s.status, Name: s.name, Notes: s.notes,
		DueDate: s.due, Currency: "USD", CreatedAt: s.created, UpdatedAt: s.updated,
	}
	if s.deleted {
		d := s.updated
		p.DeletedAt = &d
	}
	for i, it := range s.items {
		q, err := domain.ParseQuantity([]string{"62", "1.5", "0.125", "3"}[i%4])
		if err != nil {
			t.Fatal(err)
		}
		p.Items = append(p.Items, invoicing.InvoiceItemParams{
			ID: fmt.Sprintf("%s-li-%d", s.id, i), Title: it[0], Description: it[1], Quantity: q, UnitCost: 25 + int64(i),
		})
	}
	inv, err := invoicing.NewInvoice(p)
	if err != nil {
		t.Fatalf("invoice %s: %v", s.id, err)
	}
	return inv
}

// invSeed writes the organizations and invoices in one transaction.
func invSeed(t testing.TB, db *bun.DB, orgs []string, specs ...invSpec) []*invoicing.Invoice {
	t.Helper()
	f := ports.Fixture{}
	for _, o := range orgs {
		f.Organizations = append(f.Organizations, domain.Organization{ID: o, Name: "Org " + o})
	}
	for _, s := range specs {
		f.Invoices = append(f.Invoices, invBuild(t, s))
	}
	err := postgres.NewUnitOfWork(db).Do(context.Background(), func(ctx context.Context, r ports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return f.Invoices
}

func invRepo(db *bun.DB) ports.InvoiceRepository { return postgres.NewRepositories(db).Invoices }

func invIDs(invs []*invoicing.Invoice) []string {
	ids := make([]string, len(invs))
	for i, inv := range invs {
		ids[i] = inv.ID()
	}
	return ids
}

// invList reads one page and fails the test on error.
func invList(t *testing.T, repo ports.InvoiceRepository, org string, f ports.InvoiceFilter, p ports.Page) ([]string, bool) {
	t.Helper()
	invs, more, err := repo.List(context.Background(), org, f, p)
	if err != nil {
		t.Fatalf("List(%s, %+v, %+v): %v", org, f, p, err)
	}
	return invIDs(invs), more
}

// invAll walks every page of take and checks that only the last says no
// more follow.
func invAll(t *testing.T, repo ports.InvoiceRepository, org string, f ports.InvoiceFilter, take int) []string {
	t.Helper()
	var all []string
	for skip := 0; ; skip += take {
		ids, more := invList(t, repo, org, f, ports.Page{Skip: skip, Take: take})
		all = append(all, ids...)
		if !more {
			return all
		}
		if len(ids) != take {
			t.Fatalf("page at %d has %d invoices and says more follow", skip, len(ids))
		}
		if skip > 10_000 {
			t.Fatal("pages never end")
		}
	}
}

func TestInvoiceVisibilityAndDetail(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	ctx := context.Background()
	const a, b = "org_inv_vis_a", "org_inv_vis_b"
	specs := []invSpec{{id: "inv-vis-draft", org: a, status: invoicing.InvoiceDraft},
		{id: "inv-vis-acc", org: a, status: invoicing.InvoiceAccumulating},
		{id: "inv-vis-deleted", org: a, status: invoicing.InvoicePaid, deleted: true},
		{id: "inv-vis-b", org: b, status: invoicing.InvoiceUnpaid}}
	var want []string
	for i, st := range invoicing.VisibleInvoiceStatuses {
		id := "inv-vis-" + string(st)
		specs = append(specs, invSpec{id: id, org: a, status: st, created: invT0.Add(time.Duration(i) * time.Hour),
			items: [][2]string{{"Pallet storage", "62 pallet-days"}, {"Labour", "1.5 hours"}, {"Tape", "0.125 rolls"}}})
		want = append([]string{id}, want...) // newest first
	}
	invSeed(t, db, []string{a, b}, specs...)

	got, more := invList(t, repo, a, ports.InvoiceFilter{}, ports.Page{Take: 10})
	if !slices.Equal(got, want) || more {
		t.Fatalf("list %v (more %v), want %v", got, more, want)
	}

	inv, err := repo.Get(ctx, a, "inv-vis-collecting")
	if err != nil {
		t.Fatal(err)
	}
	items := inv.Items()
	if len(items) != 3 || items[0].Title() != "Pallet storage" || items[1].Quantity().String() != "1.5" ||
		items[2].Quantity().String() != "0.125" || items[2].TotalCost() != 3 { // 0.125 × 27 = 3.375
		t.Fatalf("items %+v", items)
	}
	if inv.TotalAmount() != 62*25+39+3 || inv.Status() != invoicing.InvoiceCollecting || inv.Key() != "KEY-inv-vis-collecting" ||
		!inv.CreatedAt().Equal(invT0.Add(5*time.Hour)) || inv.DeletedAt() != nil {
		t.Fatalf("invoice %+v", inv)
	}

	for _, tt := range []struct{ org, id string }{
		{a, "inv-vis-draft"}, {a, "inv-vis-acc"}, {a, "inv-vis-deleted"}, {a, "inv-vis-b"}, {b, "inv-vis-paid"}, {a, "inv-vis-none"},
	} {
		if _, err := repo.Get(ctx, tt.org, tt.id); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("Get(%s, %s) = %v, want ErrNotFound", tt.org, tt.id, err)
		}
	}
}

func TestInvoiceListStatusFilter(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	const org = "org_inv_status"
	var specs []invSpec
	for i, st := range append(slices.Clone(invoicing.VisibleInvoiceStatuses), invoicing.InvoiceDraft, invoicing.InvoiceAccumulating) {
		for j := range 2 {
			specs = append(specs, invSpec{id: fmt.Sprintf("inv-st-%s-%d", st, j), org: org, status: st,
				created: invT0.Add(time.Duration(i*2+j) * time.Minute)})
		}
	}
	specs = append(specs, invSpec{id: "inv-st-paid-deleted", org: org, status: invoicing.InvoicePaid, deleted: true},
		invSpec{id: "inv-st-other-org", org: "org_inv_status_x", status: invoicing.InvoicePaid})
	invSeed(t, db, []string{org, "org_inv_status_x"}, specs...)
	for _, st := range invoicing.VisibleInvoiceStatuses {
		got, more := invList(t, repo, org, ports.InvoiceFilter{Status: st}, ports.Page{Take: 10})
		want := []string{fmt.Sprintf("inv-st-%s-1", st), fmt.Sprintf("inv-st-%s-0", st)}
		if !slices.Equal(got, want) || more {
			t.Errorf("status %s: %v (more %v), want %v", st, got, more, want)
		}
	}
}

// invOrderSpecs are invoices with many ties in every sort key, IDs in an
// order unrelated to the keys, in two organizations that interleave.
func invOrderSpecs(org string, n int) []invSpec {
	var specs []invSpec
	for i := range n {
		k := (i * 7) % n // scatter IDs against the keys
		st := invoicing.VisibleInvoiceStatuses[i%len(invoicing.VisibleInvoiceStatuses)]
		if i%9 == 8 {
			st = invoicing.InvoiceDraft
		}
		specs = append(specs, invSpec{
			id: fmt.Sprintf("%s-%02d", strings.ReplaceAll(org, "_", "-"), k), org: org, status: st, deleted: i%11 == 10,
			created: invT0.Add(time.Duration(i%4) * time.Hour),
			updated: invT0.Add(time.Duration(4+i%3) * time.Hour),
			due:     invT0.AddDate(0, 0, 30+i%5),
		})
	}
	return specs
}

// invExpected is the order docs/invoices.md gives, computed in Go.
func invExpected(specs []invSpec, org string, f ports.InvoiceFilter) []string {
	var keep []invSpec
	for _, s := range specs {
		if s.org == org && s.status.Visible() && !s.deleted && (f.Status == "" || s.status == f.Status) {
			keep = append(keep, s)
		}
	}
	key := func(s invSpec) time.Time {
		switch f.SortBy {
		case ports.InvoicesByUpdatedAt:
			return s.updated
		case ports.InvoicesByDueDate:
			return s.due
		}
		return s.created
	}
	slices.SortFunc(keep, func(x, y invSpec) int {
		c := key(x).Compare(key(y))
		if c == 0 {
			c = strings.Compare(x.id, y.id)
		}
		if !f.Ascending {
			c = -c
		}
		return c
	})
	ids := make([]string, len(keep))
	for i, s := range keep {
		ids[i] = s.id
	}
	return ids
}

func TestInvoiceListOrderTiesAndPages(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	const org, other = "org_inv_order", "org_inv_order_x"
	specs := append(invOrderSpecs(org, 40), invOrderSpecs(other, 15)...)
	invSeed(t, db, []string{org, other}, specs...)
	t.Run("planner's choice", func(t *testing.T) { invCheckOrder(t, invRepo(db), org, specs) })
	// With index scans off the rows are sorted after reading them in heap
	// (insertion) order: the order and the tie-break must not depend on
	// the plan.
	t.Run("sorted after reading", func(t *testing.T) {
		err := db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off"); err != nil {
				return err
			}
			invCheckOrder(t, postgres.NewRepositories(tx).Invoices, org, specs)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func invCheckOrder(t *testing.T, repo ports.InvoiceRepository, org string, specs []invSpec) {
	for _, by := range []ports.InvoiceSortKey{ports.InvoicesByCreatedAt, ports.InvoicesByUpdatedAt, ports.InvoicesByDueDate} {
		for _, asc := range []bool{false, true} {
			for _, status := range []invoicing.InvoiceStatus{"", invoicing.InvoiceUnpaid} {
				f := ports.InvoiceFilter{SortBy: by, Ascending: asc, Status: status}
				want := invExpected(specs, org, f)
				if len(want) < 5 {
					t.Fatalf("fixture too small for %+v", f)
				}
				// One page holding everything is in the expected order, ties
				// broken by ID in the same direction.
				got, more := invList(t, repo, org, f, ports.Page{Take: 10})
				if !slices.Equal(got, want[:min(10, len(want))]) || more != (len(want) > 10) {
					t.Errorf("%+v first page: %v (more %v), want %v", f, got, more, want[:min(10, len(want))])
				}
				// Walking the pages yields every visible invoice exactly once.
				for _, take := range []int{1, 3, 10} {
					if all := invAll(t, repo, org, f, take); !slices.Equal(all, want) {
						t.Errorf("%+v, pages of %d: %v, want %v", f, take, all, want)
					}
				}
				// A page past the end is empty and final.
				if got, more := invList(t, repo, org, f, ports.Page{Skip: len(want), Take: 10}); len(got) != 0 || more {
					t.Errorf("%+v past the end: %v (more %v)", f, got, more)
				}
			}
		}
	}
}

func TestInvoiceSearch(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	const org, other = "org_inv_search", "org_inv_search_x"
	at := func(m int) time.Time { return invT0.Add(time.Duration(m) * time.Minute) }
	invSeed(t, db, []string{org, other},
		invSpec{id: "inv-s-IDTOKEN-1", org: org, created: at(1)},
		invSpec{id: "inv-s-key", org: org, key: "INV-2026-KEYTOKEN", created: at(2)},
		invSpec{id: "inv-s-name", org: org, name: "October NameToken storage", created: at(3)},
		invSpec{id: "inv-s-notes", org: org, notes: "Net 30. notestoken inside", created: at(4)},
		invSpec{id: "inv-s-title", org: org, items: [][2]string{{"Pick", "x"}, {"Second TitleToken line", "y"}}, created: at(5)},
		invSpec{id: "inv-s-desc", org: org, items: [][2]string{{"Pick", "x"}, {"Pack", "to Zoë — DescToken city"}}, created: at(6)},
		invSpec{id: "inv-s-umlaut", org: org, name: "ÄPFEL und Birnen", notes: "Øresund", created: at(7)},
		invSpec{id: "inv-s-across", org: org, name: "Monthly fee", notes: "storage extra", created: at(8)},
		invSpec{id: "inv-s-draft", org: org, status: invoicing.InvoiceDraft, name: "NameToken draft", created: at(9)},
		invSpec{id: "inv-s-deleted", org: org, deleted: true, name: "NameToken deleted", created: at(10)},
		invSpec{id: "inv-s-unpaid", org: org, status: invoicing.InvoiceUnpaid, name: "Unpaid NameToken", created: at(11)},
		invSpec{id: "inv-s-other", org: other, name: "NameToken DescToken of another organization", created: at(12)},
	)
	tests := []struct {
		term   string
		status invoicing.InvoiceStatus
		want   []string
	}{
		{term: "idtoken", want: []string{"inv-s-IDTOKEN-1"}},                                 // invoice ID, other case
		{term: "inv-s-IDTOKEN", want: []string{"inv-s-IDTOKEN-1"}},                           // ID prefix
		{term: "keytoken", want: []string{"inv-s-key"}},                                      // key, not in responses
		{term: "2026-KEY", want: []string{"inv-s-key"}},                                      // key, across punctuation
		{term: "NAMETOKEN", want: []string{"inv-s-unpaid", "inv-s-name"}},                    // name; draft, deleted and other org left out
		{term: "nametoken", status: invoicing.InvoiceUnpaid, want: []string{"inv-s-unpaid"}}, // with a status
		{term: "NotesToken", want: []string{"inv-s-notes"}},                                  // notes
		{term: "titletoken", want: []string{"inv-s-title"}},                                  // second item's title
		{term: "desctoken", want: []string{"inv-s-desc"}},                                    // second item's description
		{term: "zoë — desc", want: []string{"inv-s-desc"}},                                   // non-ASCII, punctuation
		{term: "ZOË", want: []string{"inv-s-desc"}},                                          // non-ASCII upper case
		{term: "äpfel", want: []string{"inv-s-umlaut"}},                                      // stored upper, searched lower
		{term: "ø", want: []string{"inv-s-umlaut"}},                                          // one character
		{term: "Ø", want: []string{"inv-s-umlaut"}},                                          // one character, upper case
		{term: "ktob", want: []string{}},                                                     // nothing
		{term: "tob", want: []string{"inv-s-name"}},                                          // inside a word
		{term: "fee storage", want: []string{}},                                              // never across two fields
		{term: "Y F", want: []string{"inv-s-across"}},                                        // no run of three letters: the gram index
		{term: "xylophone", want: []string{}},
		{term: "storage extra", want: []string{"inv-s-across"}},      // two words, found by their junction
		{term: "october nametoken st", want: []string{"inv-s-name"}}, // three words, the last one cut
		{term: "storage nametoken", want: []string{}},                // both words there, never in this order
		{term: "To Zoë — DescTok", want: []string{"inv-s-desc"}},     // a run of separators
		{term: "zoë desctok", want: []string{}},                      // … is not one space
	}
	for _, tt := range tests {
		got, _ := invList(t, repo, org, ports.InvoiceFilter{Search: tt.term, Status: tt.status}, ports.Page{Take: 10})
		if !slices.Equal(got, tt.want) {
			t.Errorf("search %q (status %q): %v, want %v", tt.term, tt.status, got, tt.want)
		}
	}
	// The other organization finds only its own.
	if got, _ := invList(t, repo, other, ports.InvoiceFilter{Search: "nametoken"}, ports.Page{Take: 10}); !slices.Equal(got, []string{"inv-s-other"}) {
		t.Errorf("other organization's search: %v", got)
	}
	if got, _ := invList(t, repo, other, ports.InvoiceFilter{Search: "idtoken"}, ports.Page{Take: 10}); len(got) != 0 {
		t.Errorf("other organization finds %v by a foreign ID", got)
	}
}

// TestInvoiceSearchWildcardsMatchThemselves covers %, _ and \ in terms of
// every kind: one or two characters and punctuation (the gram index) and
// terms with a run of three letters (the trigram index).
func TestInvoiceSearchWildcardsMatchThemselves(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	const org = "org_inv_wild"
	// IDs, keys and names without _ so that only the names below hold one.
	names := map[string]string{
		"inv-w-pct":   "50% off",
		"inv-w-space": "100 percent",
		"inv-w-under": "pallet_storage a_b",
		"inv-w-axb":   "pallet-storage axb",
		"inv-w-back":  `C:\temp\path`,
		"inv-w-plain": "Cpath temp",
		"inv-w-all":   `odd %_\ mix`,
		"inv-w-quote": `it's "quoted" ?`,
	}
	var specs []invSpec
	i := 0
	for id, name := range names {
		i++
		specs = append(specs, invSpec{id: id, org: org, key: fmt.Sprintf("K-%d", i), name: name,
			items: [][2]string{{"Item", "plain"}}, created: invT0.Add(time.Duration(len(id)) * time.Second)})
	}
	invSeed(t, db, []string{org}, specs...)
	tests := []struct {
		term string
		want []string
	}{
		{term: "%", want: []string{"inv-w-pct", "inv-w-all"}},
		{term: "0%", want: []string{"inv-w-pct"}},
		{term: "50% off", want: []string{"inv-w-pct"}},
		{term: "% off", want: []string{"inv-w-pct"}},
		{term: "_", want: []string{"inv-w-under", "inv-w-all"}},
		{term: "a_b", want: []string{"inv-w-under"}},
		{term: "pallet_storage", want: []string{"inv-w-under"}},
		{term: `\`, want: []string{"inv-w-back", "inv-w-all"}},
		{term: `:\`, want: []string{"inv-w-back"}},
		{term: `c:\temp\path`, want: []string{"inv-w-back"}},
		{term: `\temp`, want: []string{"inv-w-back"}},
		{term: `%_\`, want: []string{"inv-w-all"}},
		{term: `it's "quoted" ?`, want: []string{"inv-w-quote"}},
		{term: "?", want: []string{"inv-w-quote"}},
		{term: "'", want: []string{"inv-w-quote"}},
	}
	for _, tt := range tests {
		got, _ := invList(t, repo, org, ports.InvoiceFilter{Search: tt.term}, ports.Page{Take: 10})
		slices.Sort(got)
		slices.Sort(tt.want)
		if !slices.Equal(got, tt.want) {
			t.Errorf("search %q: %v, want %v", tt.term, got, tt.want)
		}
	}
}

func TestInvoiceSearchPagesWithTies(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	repo := invRepo(db)
	const org = "org_inv_spage"
	specs := invOrderSpecs(org, 30)
	for i := range specs {
		if i%2 == 0 {
			specs[i].notes = "Peak season surcharge"
		}
	}
	invSeed(t, db, []string{org}, specs...)
	var matching []invSpec
	for _, s := range specs {
		if s.notes != "" {
			matching = append(matching, s)
		}
	}
	for _, term := range []string{"surcharge", "pe"} { // trigram and gram index
		for _, by := range []ports.InvoiceSortKey{ports.InvoicesByCreatedAt, ports.InvoicesByDueDate} {
			for _, asc := range []bool{false, true} {
				f := ports.InvoiceFilter{Search: term, SortBy: by, Ascending: asc}
				want := invExpected(matching, org, ports.InvoiceFilter{SortBy: by, Ascending: asc})
				if all := invAll(t, repo, org, f, 4); !slices.Equal(all, want) {
					t.Errorf("%+v: %v, want %v", f, all, want)
				}
			}
		}
	}
}

func TestInvoiceListReadsItemsInOneQuery(t *testing.T) {
	db, rec := pgtest.OpenRecording(testDSN)
	t.Cleanup(func() { _ = db.Close() })
	const org = "org_inv_nplus1"
	var specs []invSpec
	for i := range 12 {
		specs = append(specs, invSpec{id: fmt.Sprintf("inv-n1-%02d", i), org: org, created: invT0.Add(time.Duration(i) * time.Minute),
			items: [][2]string{{"A", "a"}, {"B", "b"}, {"C", "c"}}})
	}
	invSeed(t, db, []string{org}, specs...)
	rec.Take()
	invs, more, err := invRepo(db).List(context.Background(), org, ports.InvoiceFilter{}, ports.Page{Take: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(invs) != 10 || !more {
		t.Fatalf("%d invoices, more %v", len(invs), more)
	}
	for _, inv := range invs {
		if len(inv.Items()) != 3 || inv.Items()[2].Title() != "C" {
			t.Fatalf("invoice %s items %+v", inv.ID(), inv.Items())
		}
	}
	if q := rec.Take(); len(q) != 2 {
		t.Fatalf("%d queries, want 2 (the page, then its items):\n%v", len(q), q)
	}
	// The detail is one statement, its items joined.
	if inv, err := invRepo(db).Get(context.Background(), org, "inv-n1-03"); err != nil || len(inv.Items()) != 3 {
		t.Fatalf("Get: %v", err)
	}
	if q := rec.Take(); len(q) != 1 {
		t.Fatalf("%d queries for the detail, want 1:\n%v", len(q), q)
	}
	// An empty page asks nothing more.
	if _, _, err := invRepo(db).List(context.Background(), org, ports.InvoiceFilter{Search: "xylophone"}, ports.Page{Take: 10}); err != nil {
		t.Fatal(err)
	}
	if q := rec.Take(); len(q) != 1 {
		t.Fatalf("%d queries for an empty page, want 1", len(q))
	}
}

// invOracle answers a list query in Go from the invoices written: the
// reference the database's answers are checked against.
func invOracle(invs []*invoicing.Invoice, org string, f ports.InvoiceFilter, p ports.Page) ([]string, bool) {
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
		case ports.InvoicesByUpdatedAt:
			return inv.UpdatedAt()
		case ports.InvoicesByDueDate:
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
		filter ports.InvoiceFilter
		page   ports.Page
	}
	shapes := []shape{{name: "default"}, {name: "deep skip", page: ports.Page{Skip: 1000}},
		{name: "search common", filter: ports.InvoiceFilter{Search: "storage"}},
		{name: "search rare", filter: ports.InvoiceFilter{Search: "anchorage"}},
		{name: "search no match", filter: ports.InvoiceFilter{Search: "xylophone"}},
		{name: "search short common", filter: ports.InvoiceFilter{Search: "pa"}},
		{name: "search short rare", filter: ports.InvoiceFilter{Search: "ø"}},
		{name: "search punctuation", filter: ports.InvoiceFilter{Search: "#1"}},
		{name: "search short common, skip", filter: ports.InvoiceFilter{Search: "pa"}, page: ports.Page{Skip: 80}},
		{name: "search short, old invoices only", filter: ports.InvoiceFilter{Search: "ß"}},
		{name: "search short, old invoices only, asc", filter: ports.InvoiceFilter{Search: "ß", Ascending: true, SortBy: ports.InvoicesByDueDate}, page: ports.Page{Skip: 5}},
		{name: "search short + status", filter: ports.InvoiceFilter{Search: "ß", Status: invoicing.InvoiceCancelled}},
		{name: "search rare + status", filter: ports.InvoiceFilter{Search: "anchorage", Status: invoicing.InvoicePaid}},
		{name: "search common + sort", filter: ports.InvoiceFilter{Search: "storage", SortBy: ports.InvoicesByDueDate, Ascending: true}},
		{name: "search common words never together", filter: ports.InvoiceFilter{Search: "storage kitting"}},
		{name: "search common phrase", filter: ports.InvoiceFilter{Search: "pallet storage"}},
		{name: "search words and punctuation", filter: ports.InvoiceFilter{Search: "units, order #1000"}},
		{name: "search rare phrase", filter: ports.InvoiceFilter{Search: "to anchorage"}},
	}
	for _, st := range invoicing.VisibleInvoiceStatuses {
		shapes = append(shapes, shape{name: "status " + string(st), filter: ports.InvoiceFilter{Status: st}})
	}
	for _, by := range []ports.InvoiceSortKey{ports.InvoicesByCreatedAt, ports.InvoicesByUpdatedAt, ports.InvoicesByDueDate} {
		for _, asc := range []bool{false, true} {
			shapes = append(shapes, shape{name: fmt.Sprintf("sort %s asc=%v", by, asc), filter: ports.InvoiceFilter{SortBy: by, Ascending: asc}},
				shape{name: fmt.Sprintf("status + sort %s asc=%v", by, asc), filter: ports.InvoiceFilter{SortBy: by, Ascending: asc, Status: invoicing.InvoiceRefunded}})
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
	for _, sql := range postgres.ReadStatements() {
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
