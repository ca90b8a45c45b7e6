package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/adapters/system"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

// Helpers of the billing tests; their names start with `bill`.

// billClock is a clock the test moves.
type billClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *billClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *billClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// billing is the billing use cases of one "instance": its own pool.
type billInstance struct {
	db    *bun.DB
	tx    *postgres.Transactions // every context's units of work, as bootstrap shares them
	deps  billingapp.Deps
	set   *billingapp.SetRateCardHandler
	run   *billingapp.RunBillingHandler
	close *billingapp.ClosePeriodHandler
	prev  *billingapp.PreviewInvoicesHandler
	add   *billingapp.AddChargeHandler
	move  *billingapp.ChangeInvoiceStatusHandler
}

// billDatabase makes a database of the test's own (runs bill every
// organization of a database, and keys are counted across it).
func billDatabase(t *testing.T) string {
	t.Helper()
	dsn := pgtest.Database(t, true)
	t.Cleanup(func() { // before the drop: cleanups run last first
		if err := pgtest.CheckChargeDays(context.Background(), dsn); err != nil {
			t.Error(err)
		}
	})
	return dsn
}

func newBillInstance(t *testing.T, dsn string, clock *billClock, loc *time.Location, conns int) *billInstance {
	t.Helper()
	db, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: conns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	opt := postgres.WithBilling(postgres.BillingSettings{Location: loc, ChargeTestShipments: true})
	tx := postgres.NewTransactions(db, nil, opt)
	d := billingapp.Deps{
		UnitOfWork: postgres.UnitOfWorkOf(tx, pgbilling.Repositories), Repos: postgres.NewRepositories(db, pgbilling.Repositories, opt),
		Clock: clock, IDs: system.IDs{},
		Settings: billingapp.Settings{Calendar: billing.NewCalendar(loc), Grace: 24 * time.Hour,
			Terms: 720 * time.Hour, CollectionsAfter: 720 * time.Hour},
	}
	return &billInstance{db: db, tx: tx, deps: d, set: billingapp.NewSetRateCardHandler(d), run: billingapp.NewRunBillingHandler(d),
		close: billingapp.NewClosePeriodHandler(d), prev: billingapp.NewPreviewInvoicesHandler(d),
		add: billingapp.NewAddChargeHandler(d), move: billingapp.NewChangeInvoiceStatusHandler(d)}
}

// uowOf is the unit of work of the context whose repositories bind builds,
// on b's transactions.
func uowOf[R any](b *billInstance, bind func(postgres.Handle) R) ports.UnitOfWork[R] {
	return postgres.UnitOfWorkOf(b.tx, bind)
}

func billExec(t *testing.T, db bun.IDB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", strings.SplitN(q, "\n", 2)[0], err)
	}
}

// billOrg writes an organization with one warehouse, product p1 and carton
// c1, all named after org.
func billOrg(t *testing.T, db bun.IDB, org string) {
	t.Helper()
	billExec(t, db, `INSERT INTO organizations (id, name) VALUES (?, ?)`, org, "Org "+org)
	billExec(t, db, `INSERT INTO warehouses (id, name, address_name, address_line1, address_city, address_state,
	address_country_code, address_postal_code, contact_name, contact_email, contact_phone_number, tags)
	VALUES (?, 'DC', 'DC', '1 Dock St', 'Newark', 'NJ', 'US', '07102', 'Ops', 'ops@example.com', '+1 555 0100', '{}')`, "wh_"+org)
	billExec(t, db, `INSERT INTO warehouse_organizations (organization_id, warehouse_id) VALUES (?, ?)`, org, "wh_"+org)
	billExec(t, db, `INSERT INTO products (id, organization_id, sku, name) VALUES (?, ?, 'TEE', 'Tee')`, "p1_"+org, org)
	billExec(t, db, `INSERT INTO cartons (id, organization_id, sku, name) VALUES (?, ?, 'CTN', 'Tee x24')`, "c1_"+org, org)
}

// billCardedOrg writes an organization as billOrg does and sets it the
// newBillOctober is a billing instance of 4 connections, in UTC, on a
// database of its own, its clock at October 30, 2030, with each of orgs
// carded (billCardedOrg).
func newBillOctober(t *testing.T, orgs ...string) (*billInstance, *billClock) {
	t.Helper()
	clock := &billClock{now: utc("2030-10-30T00:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 4)
	for _, org := range orgs {
		billCardedOrg(t, b, org)
	}
	return b, clock
}

// example card from November 1, 2030.
func billCardedOrg(t *testing.T, b *billInstance, org string) {
	t.Helper()
	billOrg(t, b.db, org)
	if _, err := b.set.Handle(context.Background(), billingapp.SetRateCard{Actor: operator, Card: billExampleCard(org, "2030-11-01")}); err != nil {
		t.Fatal(err)
	}
}

// billNewYork is an instance billing in America/New_York on a database of
// its own, its clock at now, with the carded organization org.
func billNewYork(t *testing.T, now time.Time, org string) (*billInstance, *billClock) {
	t.Helper()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	clock := &billClock{now: now}
	b := newBillInstance(t, billDatabase(t), clock, ny, 4)
	billCardedOrg(t, b, org)
	return b, clock
}

// billMove writes a movement of the stock ledger and its balance, as
// StockLedger.Move does (billing reads both: a balance is the sum of its
// item's movements).
func billMove(t *testing.T, db bun.IDB, org string, carton bool, qty int64, reason, ref string, at time.Time) {
	t.Helper()
	item := "p1_" + org
	col := "product_id"
	if carton {
		item, col = "c1_"+org, "carton_id"
	}
	var receipt, shipment any
	switch reason {
	case "receipt":
		receipt = ref
	case "shipment":
		shipment = ref
	}
	billExec(t, db, `INSERT INTO stock_movements (organization_id, warehouse_id, `+col+`, quantity, reason, receipt_id, shipment_id, occurred_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, org, "wh_"+org, item, qty, reason, receipt, shipment, at)
	table := "product_stock"
	if carton {
		table = "carton_stock"
	}
	billExec(t, db, `INSERT INTO `+table+` AS s (organization_id, `+col+`, warehouse_id, on_hand) VALUES (?, ?, ?, greatest(?::bigint, 0))
	ON CONFLICT (`+col+`, warehouse_id) DO UPDATE SET on_hand = s.on_hand + ?`, org, item, "wh_"+org, qty, qty)
}

// billShip writes a shipped shipment (as the ship route will) of units of
// p1 (pick_pack) or cartons of c1 (spd), and its movement.
func billShip(t *testing.T, db bun.IDB, org, id string, spd bool, qty int64, at time.Time) {
	t.Helper()
	kind := "pick_pack"
	if spd {
		kind = "spd"
	}
	billExec(t, db, `INSERT INTO shipments (id, organization_id, kind, status, warehouse_id, test, created_at, updated_at,
	submitted_at, shipped_at, tracking_carrier, tracking_number) VALUES (?, ?, ?, 'shipped', ?, true, ?, ?, ?, ?, 'UPS', ?)`,
		id, org, kind, "wh_"+org, at.Add(-time.Hour), at, at.Add(-time.Hour), at, "1Z"+id)
	if spd {
		billExec(t, db, `INSERT INTO shipment_cartons (organization_id, shipment_id, carton_id, position, quantity) VALUES (?, ?, ?, 0, ?)`,
			org, id, "c1_"+org, qty)
	} else {
		billExec(t, db, `INSERT INTO shipment_items (organization_id, shipment_id, product_id, position, quantity) VALUES (?, ?, ?, 0, ?)`,
			org, id, "p1_"+org, qty)
	}
	billMove(t, db, org, spd, -qty, "shipment", id, at)
}

// billReceive writes a receipt of units of p1 and cartons of c1.
func billReceive(t *testing.T, db bun.IDB, org, id string, units, cartons int64, at time.Time) {
	t.Helper()
	billExec(t, db, `INSERT INTO warehouse_receipts (id, warehouse_id, organization_id, reference, received_at, received_at_given, created_at)
	VALUES (?, ?, ?, ?, ?, true, ?)`, id, "wh_"+org, org, "ASN-"+id, at, at)
	pos := 0
	if units > 0 {
		billExec(t, db, `INSERT INTO warehouse_receipt_lines (receipt_id, organization_id, position, product_id, quantity) VALUES (?, ?, ?, ?, ?)`,
			id, org, pos, "p1_"+org, units)
		billMove(t, db, org, false, units, "receipt", id, at)
		pos++
	}
	if cartons > 0 {
		billExec(t, db, `INSERT INTO warehouse_receipt_lines (receipt_id, organization_id, position, carton_id, quantity) VALUES (?, ?, ?, ?, ?)`,
			id, org, pos, "c1_"+org, cartons)
		billMove(t, db, org, true, cartons, "receipt", id, at)
	}
}

// billService writes a service performed.
func billService(t *testing.T, db bun.IDB, org, id, code string, milli int64, at time.Time) {
	t.Helper()
	billExec(t, db, `INSERT INTO warehouse_services (id, warehouse_id, organization_id, reference, service, quantity_milli,
	performed_at, performed_at_given, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, true, ?)`, id, "wh_"+org, org, "SVC-"+id, code, milli, at, at)
}

// billExampleCard is the example card of docs/billing.md.
func billExampleCard(org, from string) billing.RateCardParams {
	return billing.RateCardParams{OrganizationID: org, EffectiveFrom: from,
		Fees: map[string]int64{"pick_pack_order": 250, "pick_pack_unit": 40, "spd_carton": 400, "receiving_unit": 15,
			"receiving_carton": 120, "storage_unit_month": 30, "storage_carton_month": 450, "minimum_monthly": 5000},
		Services: map[string]billing.Service{"kitting": {Title: "Kitting", UnitCost: 75}, "labor_hour": {Title: "Labour", UnitCost: 4500}}}
}

// billLine is an invoice line as the API shows it.
type billLine struct {
	Title, Description, Quantity string
	UnitCost, TotalCost          int64
}

func billLines(inv *invoicing.Invoice) []billLine {
	var out []billLine
	for _, it := range inv.Items() {
		out = append(out, billLine{it.Title(), it.Description(), it.Quantity().String(), it.UnitCost(), it.TotalCost()})
	}
	return out
}

func billWantLines(t *testing.T, got, want []billLine) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n got %+v\nwant %+v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// billInvoiceIDs lists an organization's stored invoices (any status) by key.
func billInvoices(t *testing.T, db bun.IDB, org string) (ids, keys []string) {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT id, key FROM invoices WHERE organization_id = ? ORDER BY key`, org)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			t.Fatal(err)
		}
		ids, keys = append(ids, id), append(keys, key)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, keys
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// The worked example of docs/billing.md, end to end against PostgreSQL:
// its numbers are the document's.
func TestBillingWorkedExample(t *testing.T) {
	ctx := context.Background()
	n := func(s string) string { return s }
	org := "acme" // docs/billing.md's names
	clock := &billClock{now: utc("2030-10-20T09:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 4)
	billCardedOrg(t, b, org)
	// Opening balances, then November's facts.
	billMove(t, b.db, org, false, 100, "opening", "", utc("2030-10-31T12:00:00Z"))
	billMove(t, b.db, org, true, 4, "opening", "", utc("2030-10-31T12:00:00Z"))
	billReceive(t, b.db, org, n("rcp_ex"), 50, 2, utc("2030-11-10T12:00:00Z"))
	billService(t, b.db, org, n("svc_lab"), "labor_hour", 1_500, utc("2030-11-12T15:00:00Z"))
	billService(t, b.db, org, n("svc_kit"), "kitting", 10_000, utc("2030-11-12T16:00:00Z"))
	billShip(t, b.db, org, n("shp_a"), false, 3, utc("2030-11-20T10:00:00Z"))
	billShip(t, b.db, org, n("shp_b"), false, 1, utc("2030-11-20T11:00:00Z"))
	billShip(t, b.db, org, n("shp_c"), true, 1, utc("2030-11-25T10:00:00Z"))

	clock.set(utc("2030-11-26T08:00:00Z"))
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: org, Reference: "RMA-1", Title: "Damage credit",
		Description: "1 tee damaged in storage", Quantity: "1", UnitCost: -500}); err != nil {
		t.Fatal(err)
	}
	// Preview while the period runs: accumulating, hidden from the API.
	prev, err := b.prev.Handle(ctx, billingapp.PreviewInvoices{OrganizationID: org})
	if err != nil || len(prev) != 1 || prev[0].Status() != invoicing.InvoiceAccumulating {
		t.Fatalf("preview = %v, %v", prev, err)
	}
	if _, err := postgres.NewRepositories(b.db, pgbilling.Repositories).Invoices.Get(ctx, org, prev[0].ID()); err == nil {
		t.Fatal("the accumulating invoice is visible")
	}

	// December 1 plus the grace of 24 h: the run finalizes November.
	clock.set(utc("2030-12-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil {
		t.Fatal(err)
	}
	var mine []string
	for _, f := range res.Finalized {
		if f.OrganizationID == org {
			mine = append(mine, f.InvoiceID)
		}
	}
	if len(mine) != 1 || mine[0] != prev[0].ID() {
		t.Fatalf("finalized %v, want the previewed invoice %s", mine, prev[0].ID())
	}
	inv, err := postgres.NewRepositories(b.db, pgbilling.Repositories).Invoices.Get(ctx, org, mine[0])
	if err != nil {
		t.Fatal(err)
	}
	wh := "wh_" + org
	billWantLines(t, billLines(inv), []billLine{
		{"Pick & Pack orders", wh + ": 2 shipments", "2", 250, 500},
		{"Pick & Pack additional units", wh + ": 1 shipment", "2", 40, 80},
		{"SPD cartons", wh + ": 1 shipment", "1", 400, 400},
		{"Receiving (units)", wh + ": 1 receipt", "50", 15, 750},
		{"Receiving (cartons)", wh + ": 1 receipt", "2", 120, 240},
		{"Storage (units)", wh + ": 30 days", "133.533", 30, 4006},
		{"Storage (cartons)", wh + ": 30 days", "5.2", 450, 2340},
		{"Kitting", wh + ": 1 service", "10", 75, 750},
		{"Labour", wh + ": 1 service", "1.5", 4500, 6750},
		{"Damage credit", "1 tee damaged in storage", "1", -500, -500},
	})
	if inv.TotalAmount() != 15_316 || inv.Status() != invoicing.InvoiceUnpaid || inv.Name() != "Fulfillment, November 2030" ||
		!inv.DueDate().Equal(utc("2031-01-01T00:00:00Z")) || !inv.CreatedAt().Equal(utc("2030-12-02T00:00:00Z")) ||
		inv.Notes() != "Payment terms: net 30 days (due 2031-01-01)." {
		t.Errorf("invoice: total %d, status %s, name %q, due %v, created %v, notes %q", inv.TotalAmount(), inv.Status(),
			inv.Name(), inv.DueDate(), inv.CreatedAt(), inv.Notes())
	}
	_, keys := billInvoices(t, b.db, org)
	if len(keys) != 1 || keys[0] != "INV-2030-000001" {
		t.Errorf("keys %v", keys)
	}
}
