package invoicing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// invSnapshot is everything a read returns of an invoice, comparable.
func invSnapshot(inv *invoicing.Invoice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%s|%s|%s|%s|%d|%s|%s|%s|%v", inv.ID(), inv.OrganizationID(), inv.Key(), inv.Status(), inv.Name(),
		inv.Notes(), inv.Currency(), inv.TotalAmount(), inv.DueDate().UTC(), inv.CreatedAt().UTC(), inv.UpdatedAt().UTC(), inv.DeletedAt())
	for _, it := range inv.Items() {
		fmt.Fprintf(&b, "\n  %s|%s|%s|%s|%d|%d", it.ID(), it.Title(), it.Description(), it.Quantity(), it.UnitCost(), it.TotalCost())
	}
	return b.String()
}

// TestInvoicePreparedReadsAnswerAsUnprepared reads every list shape without
// a search term, every page size and the detail of every invoice both ways —
// as the service does, through prepared statements, and unprepared — and
// wants the same
// answers, the order checked against the expected one as well; then checks
// that the statements really ran prepared.
func TestInvoicePreparedReadsAnswerAsUnprepared(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	const org, other = "org_inv_prep", "org_inv_prep_x"
	specs := append(invOrderSpecs(org, 40), invOrderSpecs(other, 15)...)
	for i := range specs {
		// 0 to 3 items: an invoice without items is one row of NULL items.
		specs[i].items = [][2]string{{"Pallet storage", fmt.Sprintf("%d pallets", i)}, {"Labour", "1.5 hours"}, {"Tape", "0.125 rolls"}}[:i%4]
	}
	invSeed(t, db, []string{org, other}, specs...)
	// One connection: afterwards it holds the statements it prepared.
	one, err := postgres.Open(postgres.Options{DSN: testDSN, MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = one.Close() })
	prepared := pginvoicing.Invoices(postgres.OnPool(one))
	plain := pginvoicing.UnpreparedInvoices(db)
	ctx := context.Background()

	read := func(repo invoicingports.InvoiceRepository, f invoicingports.InvoiceFilter, p ports.Page) ([]string, bool) {
		t.Helper()
		invs, more, err := repo.List(ctx, org, f, p)
		if err != nil {
			t.Fatalf("List(%+v, %+v): %v", f, p, err)
		}
		out := make([]string, len(invs))
		for i, inv := range invs {
			out[i] = invSnapshot(inv)
		}
		return out, more
	}
	for _, by := range []invoicingports.InvoiceSortKey{invoicingports.InvoicesByCreatedAt, invoicingports.InvoicesByUpdatedAt, invoicingports.InvoicesByDueDate} {
		for _, asc := range []bool{false, true} {
			for _, status := range []invoicing.InvoiceStatus{"", invoicing.InvoiceUnpaid, invoicing.InvoiceCollecting} {
				f := invoicingports.InvoiceFilter{SortBy: by, Ascending: asc, Status: status}
				want := invExpected(specs, org, f)
				for _, p := range []ports.Page{{Take: 10}, {Take: 1}, {Skip: 3, Take: 3}, {Skip: 9, Take: 10}, {Skip: len(want) - 1, Take: 10}, {Skip: 100, Take: 10}} {
					got, more := read(prepared, f, p)
					ref, refMore := read(plain, f, p)
					if !reflect.DeepEqual(got, ref) || more != refMore {
						t.Errorf("%+v %+v: prepared\n%s (more %v)\nunprepared\n%s (more %v)", f, p,
							strings.Join(got, "\n"), more, strings.Join(ref, "\n"), refMore)
					}
					ids, _ := invList(t, prepared, org, f, p)
					end := min(max(p.Skip, 0)+p.Take, len(want))
					if exp := want[min(p.Skip, len(want)):end]; !reflect.DeepEqual(ids, exp) && len(ids)+len(exp) > 0 {
						t.Errorf("%+v %+v: %v, want %v", f, p, ids, exp)
					}
				}
			}
		}
	}
	for _, s := range specs {
		got, err := prepared.Get(ctx, org, s.id)
		ref, refErr := plain.Get(ctx, org, s.id)
		if (err == nil) != (refErr == nil) || (err != nil && err.Error() != refErr.Error()) {
			t.Fatalf("Get(%s): prepared %v, unprepared %v", s.id, err, refErr)
		}
		if err == nil && invSnapshot(got) != invSnapshot(ref) {
			t.Errorf("Get(%s): prepared\n%s\nunprepared\n%s", s.id, invSnapshot(got), invSnapshot(ref))
		}
		if err == nil && len(got.Items()) != len(s.items) {
			t.Errorf("Get(%s): %d items, want %d", s.id, len(got.Items()), len(s.items))
		}
	}

	var n int
	if err := one.NewRaw("SELECT count(*) FROM pg_prepared_statements WHERE statement IN (?)",
		bun.List(pginvoicing.ReadStatements())).Scan(ctx, &n); err != nil {
		t.Fatal(err)
	}
	if want := len(pginvoicing.ReadStatements()); n != want {
		t.Errorf("the connection holds %d prepared read statements, want %d", n, want)
	}

}

// TestInvoiceReadsKeepGenericPlans runs the first pages of two lists and a
// detail eight times through the repositories on one connection and fails
// unless PostgreSQL ran the generic plan of each statement instead of
// planning it anew at every execution: the point of preparing them
// (postgres.Open's plan_cache_mode).
func TestInvoiceReadsKeepGenericPlans(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t, true)
	db := pgtest.Open(t, dsn)
	const org = "org_inv_generic"
	specs := invOrderSpecs(org, 40)
	for i := range 3000 {
		specs = append(specs, invSpec{id: fmt.Sprintf("inv-gen-%04d", i), org: org, status: invoicing.VisibleInvoiceStatuses[i%6],
			created: invT0.Add(time.Duration(i) * time.Minute), due: invT0.AddDate(0, 0, i%90)})
	}
	invSeed(t, db, []string{org}, specs...)
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE invoices, invoice_items"); err != nil {
		t.Fatal(err)
	}
	one, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = one.Close() }()
	prepared := pginvoicing.Invoices(postgres.OnPool(one))
	for range 8 {
		for _, f := range []invoicingports.InvoiceFilter{{}, {Status: invoicing.InvoiceUnpaid, SortBy: invoicingports.InvoicesByDueDate, Ascending: true}} {
			if _, _, err := prepared.List(ctx, org, f, ports.Page{Take: 10}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := prepared.Get(ctx, org, "inv-gen-1000"); err != nil {
			t.Fatal(err)
		}
	}
	var stmts []struct {
		Statement string `bun:"statement"`
		Generic   int64  `bun:"generic_plans"`
		Custom    int64  `bun:"custom_plans"`
	}
	if err := one.NewRaw("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE generic_plans + custom_plans > 0").
		Scan(ctx, &stmts); err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 4 { // two first pages, the items, the detail
		t.Fatalf("%d statements executed, want 4: %+v", len(stmts), stmts)
	}
	for _, st := range stmts {
		if st.Generic == 0 {
			t.Errorf("planned anew at every execution (%d custom plans):\n%s", st.Custom, st.Statement)
		}
	}
}

// explainGeneric returns the generic plan of sql for args (EXPLAIN of an
// EXECUTE with plan_cache_mode = force_generic_plan, on one connection).
func explainGeneric(ctx context.Context, t *testing.T, dsn, sql string, args ...string) planNode {
	t.Helper()
	one, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = one.Close() }()
	for _, stmt := range []string{"SET plan_cache_mode = force_generic_plan", "PREPARE read AS " + sql} {
		if _, err := one.DB.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var raw []byte
	if err := one.DB.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) EXECUTE read("+strings.Join(args, ", ")+")").Scan(&raw); err != nil {
		t.Fatalf("explain %s: %v", sql, err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal(raw, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("read plan: %v\n%s", err, raw)
	}
	return plans[0].Plan
}

// BenchmarkInvoiceReads reads the default page and an invoice's detail
// through the repository the service uses (prepared statements) and
// unprepared, on 2,000 invoices of three items:
//
//	go test -run '^$' -bench InvoiceReads -benchmem ./adapters/postgres/invoicing/
func BenchmarkInvoiceReads(b *testing.B) {
	db := pgtest.Open(b, testDSN)
	const org = "org_inv_bench"
	invSeed(b, db, []string{org}, invMinutely("inv-bench-%04d", org, 2000,
		[2]string{"Pick & pack", "12 orders"}, [2]string{"Pallet storage", "3 pallets × 31 days"}, [2]string{"Labour", "1.5 hours"})...)
	if _, err := db.ExecContext(context.Background(), "ANALYZE invoices, invoice_items"); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, repo := range []struct {
		name string
		repo invoicingports.InvoiceRepository
	}{{"prepared", pginvoicing.Invoices(postgres.OnPool(db))}, {"unprepared", pginvoicing.UnpreparedInvoices(db)}} {
		b.Run("list/"+repo.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := repo.repo.List(ctx, org, invoicingports.InvoiceFilter{}, ports.Page{Take: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("detail/"+repo.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := repo.repo.Get(ctx, org, "inv-bench-1000"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
