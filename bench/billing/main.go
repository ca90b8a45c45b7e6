// Command billing is the benchmark of billing at scale (docs/billing.md,
// "Speed"): on a database of its own it writes ORGS organizations sharing
// a warehouse, PRODUCTS products each with an opening balance (the stock
// rows), and ORDERS shipped Pick & Pack orders in November 2030, sets the
// example rate card of every organization, then times, on December 2:
//
//  1. the catch-up accrual of the orders' charges (one statement);
//
//  2. the 30 days of storage from the stock ledger (one statement);
//
//  3. a bare SQL aggregate over the same charges (the physical limit of
//     closing: one pass over them), with PostgreSQL's parallel workers and
//     (3b) in one process;
//
//  4. the billing run that finalizes every organization's November
//     (-breakdown: with its time by statement; -day-before: with December
//     1st's storage, which the run accrues beside the finalization,
//     accrued before it).
//
//     go run ./bench/billing -admin postgres://postgres@127.0.0.1:5432/postgres [-orgs 1000 -orders 1000000 -products 100]
//
// -snapshot NAME keeps the data set as it is before step 3 in database NAME
// (written by a run that finds no such database); a run that finds it
// copies it and starts at step 3, in seconds instead of minutes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	"github.com/acme3pl/fulfillment/adapters/system"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/bench/internal/benchdb"
	"github.com/acme3pl/fulfillment/bench/internal/proccpu"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/billing:", err)
		os.Exit(1)
	}
}

func run() error {
	admin, name := benchdb.Flags("fulfillment_bench_billing")
	orgs := flag.Int("orgs", 1000, "organizations")
	orders := flag.Int("orders", 1_000_000, "shipped orders, spread evenly over the organizations")
	products := flag.Int("products", 100, "products per organization, each a stock row")
	breakdown := flag.Bool("breakdown", false, "print the run's time by SQL statement (from its spans)")
	dayBefore := flag.Bool("day-before", false, "accrue December 1st's storage before the run, untimed: the run without the day's storage beside it")
	snapshot := flag.String("snapshot", "", "a database keeping the data set as it is before step 3: made by a run"+
		" that finds none, copied (and steps up to 2 skipped) by a run that finds it")
	flag.Parse()
	ctx := context.Background()

	adminDB, err := postgres.Open(postgres.Options{DSN: *admin, MaxOpenConns: 1})
	if err != nil {
		return err
	}
	defer func() { _ = adminDB.Close() }()
	fromSnapshot, template := false, ""
	if *snapshot != "" {
		if err := adminDB.QueryRowContext(ctx, "SELECT count(*) = 1 FROM pg_database WHERE datname = ?", *snapshot).Scan(&fromSnapshot); err != nil {
			return err
		}
	}
	if fromSnapshot {
		template = *snapshot
	}
	dsn, err := benchdb.Anew(ctx, adminDB, *admin, *name, template)
	if err != nil {
		return err
	}
	db, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: 4})
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	var backend int
	if err := db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return err
	}
	postmaster = proccpu.Parent(backend) // 0 when the server is not a process of this machine
	clock := &struct{ fixedClock }{fixedClock{time.Date(2030, 10, 30, 0, 0, 0, 0, time.UTC)}}
	opt := postgres.WithBilling(postgres.BillingSettings{Location: time.UTC, ChargeTestShipments: true})
	deps := func(now time.Time) billingapp.Deps {
		return billingapp.Deps{UnitOfWork: postgres.NewUnitOfWork(db, pgbilling.Repositories, opt), Repos: postgres.NewRepositories(db, pgbilling.Repositories, opt),
			Clock: fixedClock{now}, IDs: system.IDs{},
			Settings: billingapp.Settings{Calendar: billing.NewCalendar(time.UTC), Grace: 24 * time.Hour,
				Terms: 720 * time.Hour, CollectionsAfter: 720 * time.Hour}}
	}
	if fromSnapshot {
		fmt.Printf("the data set and steps 1 and 2 copied from %s\n", *snapshot)
		return finalize(ctx, db, deps, *breakdown, *dayBefore)
	}
	if err := benchdb.Migrate(ctx, db); err != nil {
		return err
	}

	per := *orders / *orgs
	exec := func(q string, args ...any) error { _, err := db.ExecContext(ctx, q, args...); return err }

	fmt.Printf("%d organizations, %d shipped orders, %d stock rows; load average %s\n", *orgs, per**orgs, *orgs**products, loadavg())
	if _, err := step("write organizations, products, opening balances", func() error {
		return errors.Join(
			exec(`INSERT INTO organizations (id, name) SELECT 'org_b' || o, 'Org ' || o FROM generate_series(1, ?::int) o`, *orgs),
			exec(`INSERT INTO warehouses (id, name, address_name, address_line1, address_city, address_state, address_country_code,
				address_postal_code, contact_name, contact_email, contact_phone_number, tags)
				VALUES ('wh_bench', 'Bench', 'Bench', '1 Dock St', 'Newark', 'NJ', 'US', '07102', 'Ops', 'ops@example.com', '+1', '{}')`),
			exec(`INSERT INTO warehouse_organizations SELECT 'org_b' || o, 'wh_bench' FROM generate_series(1, ?::int) o`, *orgs),
			exec(`INSERT INTO products (id, organization_id, sku, name)
				SELECT 'p_' || o || '_' || p, 'org_b' || o, 'SKU-' || p, 'P' FROM generate_series(1, ?::int) o, generate_series(1, ?::int) p`, *orgs, *products),
			exec(`INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, occurred_at)
				SELECT 'org_b' || o, 'wh_bench', 'p_' || o || '_' || p, 1000, 'opening', '2030-10-31T12:00:00Z'
				FROM generate_series(1, ?::int) o, generate_series(1, ?::int) p`, *orgs, *products))
	}); err != nil {
		return err
	}
	if _, err := step("set the rate cards (the use case, one per organization)", func() error {
		set := billingapp.NewSetRateCardHandler(deps(clock.t))
		for o := 1; o <= *orgs; o++ {
			if _, err := set.Handle(ctx, billingapp.SetRateCard{Actor: audit.Actor{Subject: "bench"}, Card: billing.RateCardParams{
				OrganizationID: fmt.Sprintf("org_b%d", o), EffectiveFrom: "2030-11-01",
				Fees: map[string]int64{"pick_pack_order": 250, "pick_pack_unit": 40, "storage_unit_month": 30, "minimum_monthly": 5000},
			}}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if _, err := step("write the shipped orders, their items and movements", func() error {
		return errors.Join(
			exec(`INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, test, created_at, updated_at, submitted_at,
				shipped_at, tracking_carrier, tracking_number)
				SELECT 's_' || o || '_' || i, 'org_b' || o, 'pick_pack', 'shipped', 'wh_bench', true, t, t, t, t, 'UPS', '1Z' || i
				FROM generate_series(1, ?::int) o, generate_series(1, ?::int) i,
					LATERAL (SELECT timestamptz '2030-11-01' + i * interval '29 days' / ?::int) x(t)`, *orgs, per, per),
			exec(`INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity)
				SELECT 'org_b' || o, 's_' || o || '_' || i, 'p_' || o || '_' || (1 + i % ?::int), 0, 1 + i % 3
				FROM generate_series(1, ?::int) o, generate_series(1, ?::int) i`, *products, *orgs, per),
			exec(`INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, shipment_id, occurred_at)
				SELECT 'org_b' || o, 'wh_bench', 'p_' || o || '_' || (1 + i % ?::int), -(1 + i % 3), 'shipment', 's_' || o || '_' || i,
					timestamptz '2030-11-01' + i * interval '29 days' / ?::int
				FROM generate_series(1, ?::int) o, generate_series(1, ?::int) i`, *products, per, *orgs, per),
			// The balances, the sum of the ledger's movements, as the ledger keeps them.
			exec(`INSERT INTO product_stock (organization_id, product_id, warehouse_id, on_hand)
				SELECT organization_id, product_id, warehouse_id, sum(quantity) FROM stock_movements GROUP BY 1, 2, 3`),
			exec(`VACUUM ANALYZE`))
	}); err != nil {
		return err
	}

	now := time.Date(2030, 12, 2, 0, 0, 0, 0, time.UTC)
	d := deps(now)
	var charges map[billing.Fee]int
	if _, err := step("1. catch-up: the orders' charges, one statement", func() error {
		return d.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
			if err := r.BillingPeriods.LockBilling(ctx, benchOrgs(*orgs)); err != nil {
				return err
			}
			charges, err = r.Charges.CatchUp(ctx, benchOrgs(*orgs), now.Add(-24*time.Hour))
			return err
		})
	}); err != nil {
		return err
	}
	if _, err := step("2. storage: 30 days of every stock row, one statement", func() error {
		return d.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
			n, err := r.Charges.AccrueStorage(ctx, benchOrgs(*orgs), billing.Date{Year: 2030, Month: time.November, Day: 30})
			for f, c := range n {
				charges[f] += c
			}
			return err
		})
	}); err != nil {
		return err
	}
	fmt.Printf("   charges: %v\n", charges)
	if err := exec(`VACUUM ANALYZE billing_charges, billing_charge_days`); err != nil {
		return err
	}
	if *snapshot != "" { // a copy needs its source without connections
		db.SetMaxIdleConns(0)
		if _, err := adminDB.ExecContext(ctx, "CREATE DATABASE "+*snapshot+" TEMPLATE "+*name); err != nil {
			return fmt.Errorf("keep the snapshot %s: %w", *snapshot, err)
		}
		db.SetMaxIdleConns(4)
	}
	return finalize(ctx, db, deps, *breakdown, *dayBefore)
}

// finalize times steps 3 and 4 on the data set.
func finalize(ctx context.Context, db *bun.DB, deps func(time.Time) billingapp.Deps, breakdown, dayBefore bool) error {
	now := time.Date(2030, 12, 2, 0, 0, 0, 0, time.UTC)
	d := deps(now)
	if dayBefore {
		err := d.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
			_, err := r.Charges.AccrueStorage(ctx, nil, billing.Date{Year: 2030, Month: time.December, Day: 1})
			return err
		})
		if err != nil {
			return err
		}
	}
	exec := func(q string, args ...any) error { _, err := db.ExecContext(ctx, q, args...); return err }
	// Copying or writing the data set wrote gigabytes of WAL: without a
	// checkpoint now, the one they call for runs through the timed steps.
	if err := exec(`CHECKPOINT`); err != nil {
		return err
	}
	const aggregate = `SELECT count(*) FROM (SELECT organization_id, fee, title, unit_cost, warehouse_id, divisor,
		sum(quantity_milli), count(*) FROM billing_charges GROUP BY 1, 2, 3, 4, 5, 6) x`
	var bare, single measure
	var err error
	for range 2 { // the second run, with the charges cached as the run will find them
		if bare, err = step("3. bare aggregate over the charges (GROUP BY line)", func() error { return exec(aggregate) }); err != nil {
			return err
		}
	}
	// The same in one process: PostgreSQL spreads the bare aggregate over
	// parallel workers; the run's statements each run in one.
	if single, err = step("3b. the same aggregate in one process", func() error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, `SET LOCAL max_parallel_workers_per_gather = 0`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, aggregate)
			return err
		})
	}); err != nil {
		return err
	}
	var res billingapp.RunResult
	var tp trace.TracerProvider = noop.NewTracerProvider()
	statements := &statementTimes{}
	if breakdown {
		tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(statements))
	}
	runTime, err := step("4. billing run: finalize every organization's November", func() error {
		ctx, span := tp.Tracer("bench").Start(ctx, "run")
		defer span.End()
		var err error
		res, err = billingapp.New(d, tp.Tracer(""), slog.New(slog.DiscardHandler)).RunBilling.Handle(ctx, billingapp.RunBilling{})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("   %d invoices finalized; the run took %.1f× the bare aggregate, %.1f× the same in one process\n",
		res.Invoices(), runTime.wall.Seconds()/bare.wall.Seconds(), runTime.wall.Seconds()/single.wall.Seconds())
	if postmaster != 0 {
		fmt.Printf("   PostgreSQL's CPU: the run used %.1f× the bare aggregate's\n", runTime.cpu.Seconds()/bare.cpu.Seconds())
	}
	if breakdown {
		statements.print()
	}
	return nil
}

// statementTimes sums the run's statement spans by statement (-breakdown).
type statementTimes struct {
	mu    sync.Mutex
	total map[string]time.Duration
	count map[string]int
}

func (s *statementTimes) OnEnd(span sdktrace.ReadOnlySpan) {
	if span.SpanKind() != trace.SpanKindClient {
		return
	}
	text := span.Name()
	for _, a := range span.Attributes() {
		if a.Key == "db.query.text" {
			text = strings.Join(strings.Fields(a.Value.AsString()), " ")
		}
	}
	text = text[:min(len(text), 90)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total == nil {
		s.total, s.count = map[string]time.Duration{}, map[string]int{}
	}
	s.total[text] += span.EndTime().Sub(span.StartTime())
	s.count[text]++
}

func (s *statementTimes) print() {
	keys := make([]string, 0, len(s.total))
	for k := range s.total {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return s.total[keys[i]] > s.total[keys[j]] })
	for _, k := range keys {
		fmt.Printf("   %8.3f s %5d× %s\n", s.total[k].Seconds(), s.count[k], k)
	}
}

func (*statementTimes) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (*statementTimes) Shutdown(context.Context) error                  { return nil }
func (*statementTimes) ForceFlush(context.Context) error                { return nil }

// postmaster is the PostgreSQL server's postmaster when it runs on this
// machine (0: not), whose process tree's CPU time step reports.
var postmaster int

// measure is a step's time and the CPU time the whole PostgreSQL server
// used meanwhile (0 when it is not a process of this machine).
type measure struct{ wall, cpu time.Duration }

// step runs and measures one step of the benchmark.
func step(what string, f func() error) (measure, error) {
	cpu := proccpu.TreeCPUTime(postmaster)
	start := time.Now()
	if err := f(); err != nil {
		return measure{}, fmt.Errorf("%s: %w", what, err)
	}
	m := measure{wall: time.Since(start), cpu: proccpu.TreeCPUTime(postmaster) - cpu}
	fmt.Printf("%-58s %10.2f s", what, m.wall.Seconds())
	if postmaster != 0 {
		fmt.Printf("   PostgreSQL CPU %6.2f s", m.cpu.Seconds())
	}
	fmt.Println()
	return m, nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return string(b[:14])
}

// benchOrgs are the organizations the bench writes, org_b1 … org_bN.
func benchOrgs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("org_b%d", i+1)
	}
	return out
}
