package invoicing_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
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

// invMinutely is n invoices of org, invoice i's ID idFormat of i, created
// a minute after invoice i-1 from invT0, each with items.
func invMinutely(idFormat, org string, n int, items ...[2]string) []invSpec {
	specs := make([]invSpec, n)
	for i := range specs {
		specs[i] = invSpec{id: fmt.Sprintf(idFormat, i), org: org, created: invT0.Add(time.Duration(i) * time.Minute), items: items}
	}
	return specs
}

// invSeed writes the organizations and invoices in one transaction.
func invSeed(t testing.TB, db *bun.DB, orgs []string, specs ...invSpec) []*invoicing.Invoice {
	t.Helper()
	f := fixtureports.Fixture{}
	for _, o := range orgs {
		f.Organizations = append(f.Organizations, domain.Organization{ID: o, Name: "Org " + o})
	}
	for _, s := range specs {
		f.Invoices = append(f.Invoices, invBuild(t, s))
	}
	err := postgres.NewUnitOfWork(db, pgfixture.Repositories).Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return f.Invoices
}

func invRepo(db *bun.DB) invoicingports.InvoiceRepository {
	return pginvoicing.Invoices(postgres.OnPool(db))
}

func invIDs(invs []*invoicing.Invoice) []string {
	ids := make([]string, len(invs))
	for i, inv := range invs {
		ids[i] = inv.ID()
	}
	return ids
}

// invList reads one page and fails the test on error.
func invList(t *testing.T, repo invoicingports.InvoiceRepository, org string, f invoicingports.InvoiceFilter, p ports.Page) ([]string, bool) {
	t.Helper()
	invs, more, err := repo.List(context.Background(), org, f, p)
	if err != nil {
		t.Fatalf("List(%s, %+v, %+v): %v", org, f, p, err)
	}
	return invIDs(invs), more
}

// invAll walks every page of take and checks that only the last says no
// more follow.
func invAll(t *testing.T, repo invoicingports.InvoiceRepository, org string, f invoicingports.InvoiceFilter, take int) []string {
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

	got, more := invList(t, repo, a, invoicingports.InvoiceFilter{}, ports.Page{Take: 10})
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
		got, more := invList(t, repo, org, invoicingports.InvoiceFilter{Status: st}, ports.Page{Take: 10})
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
func invExpected(specs []invSpec, org string, f invoicingports.InvoiceFilter) []string {
	var keep []invSpec
	for _, s := range specs {
		if s.org == org && s.status.Visible() && !s.deleted && (f.Status == "" || s.status == f.Status) {
			keep = append(keep, s)
		}
	}
	key := func(s invSpec) time.Time {
		switch f.SortBy {
		case invoicingports.InvoicesByUpdatedAt:
			return s.updated
		case invoicingports.InvoicesByDueDate:
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
			invCheckOrder(t, pginvoicing.Invoices(postgres.OnPool(tx)), org, specs)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func invCheckOrder(t *testing.T, repo invoicingports.InvoiceRepository, org string, specs []invSpec) {
	for _, by := range []invoicingports.InvoiceSortKey{invoicingports.InvoicesByCreatedAt, invoicingports.InvoicesByUpdatedAt, invoicingports.InvoicesByDueDate} {
		for _, asc := range []bool{false, true} {
			for _, status := range []invoicing.InvoiceStatus{"", invoicing.InvoiceUnpaid} {
				f := invoicingports.InvoiceFilter{SortBy: by, Ascending: asc, Status: status}
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

func TestInvoiceListReadsItemsInOneQuery(t *testing.T) {
	db, rec := pgtest.OpenRecording(testDSN)
	t.Cleanup(func() { _ = db.Close() })
	const org = "org_inv_nplus1"
	invSeed(t, db, []string{org}, invMinutely("inv-n1-%02d", org, 12, [2]string{"A", "a"}, [2]string{"B", "b"}, [2]string{"C", "c"})...)
	rec.Take()
	invs, more, err := invRepo(db).List(context.Background(), org, invoicingports.InvoiceFilter{}, ports.Page{Take: 10})
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
	if _, _, err := invRepo(db).List(context.Background(), org, invoicingports.InvoiceFilter{Search: "xylophone"}, ports.Page{Take: 10}); err != nil {
		t.Fatal(err)
	}
	if q := rec.Take(); len(q) != 1 {
		t.Fatalf("%d queries for an empty page, want 1", len(q))
	}
}
