package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/adapters/system"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	whside "github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
)

// Billing's races through the real use cases (docs/billing.md, "One lock
// order"): shipments made and submitted by the shipment use cases and
// shipped by the warehouse's ship use case with billing's hooks, racing
// billing close and billing runs.

// billStocked loads org through the fixture store on b's database (a
// warehouse wh_<org>, a product prod_<org> with onHand units there) and
// sets it the example card from November 1, 2030.
func billStocked(t *testing.T, b *billInstance, org string, onHand int64) {
	t.Helper()
	err := b.deps.UnitOfWork.Do(context.Background(), func(ctx context.Context, r ports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, ports.Fixture{
			Organizations: []domain.Organization{{ID: org, Name: "Name of " + org}},
			Warehouses:    []ports.FixtureWarehouse{{Warehouse: shipWarehouse("wh_"+org, "DC of "+org, true), Organizations: []string{org}}},
			Inventory:     []shipping.InventoryItem{shipItem(org, shipping.KindProduct, "prod_"+org, "TEE-"+org)},
			Stock:         []shipping.Stock{{WarehouseID: "wh_" + org, Kind: shipping.KindProduct, ItemID: "prod_" + org, OnHand: onHand}},
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.set.Handle(context.Background(), billingapp.SetRateCard{Card: billExampleCard(org, "2030-11-01")}); err != nil {
		t.Fatal(err)
	}
}

// billPending makes n submitted Pick & Pack shipments of one unit each.
func billPending(t *testing.T, b *billInstance, org string, n int) []string {
	t.Helper()
	uow := b.deps.UnitOfWork
	create := shippingapp.NewCreateShipmentHandler(uow, b.deps.Clock, system.IDs{}, domain.Sandbox)
	submit := shippingapp.NewSubmitShipmentHandler(uow, b.deps.Clock)
	ids := make([]string, n)
	for i := range ids {
		s, err := create.Handle(context.Background(), shippingapp.CreateShipment{OrganizationID: org, Kind: shipping.PickPack,
			WarehouseID: "wh_" + org, Address: billAddress, Lines: []shipping.ShipmentLine{{ItemID: "prod_" + org, SKU: "TEE-" + org, Quantity: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := submit.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: s.ID()}); err != nil {
			t.Fatal(err)
		}
		ids[i] = s.ID()
	}
	return ids
}

var billAddress = shipping.Address{Name: "Ada", Address1: "1 Main St", City: "Newark", State: "NJ", Zip: "07102", Country: "US"}

// billShipper ships as the warehouse does, with billing's part of the reports.
func billShipper(b *billInstance) *warehouseapp.ShipShipmentHandler {
	return warehouseapp.NewShipShipmentHandler(b.deps.UnitOfWork, b.deps.Clock, billingapp.NewReportBilling(b.deps))
}

// billShipOne ships one of org's shipments as its warehouse does.
func billShipOne(b *billInstance, org, id string) error {
	_, err := billShipper(b).Handle(context.Background(), warehouseapp.ShipShipment{WarehouseID: "wh_" + org, ShipmentID: id,
		Carrier: "UPS", TrackingNumber: "1Z999AA10123456784"})
	return err
}

// billRunAt sets the clock to at and runs billing once, failing the test
// on an error.
func billRunAt(t *testing.T, b *billInstance, clock *billClock, at time.Time) {
	t.Helper()
	clock.set(at)
	if _, err := b.run.Handle(context.Background(), billingapp.RunBilling{}); err != nil {
		t.Fatal(err)
	}
}

// billPickPackOrders counts the "Pick & Pack orders" billed to org: on its
// finalized invoices and on its open one.
func billPickPackOrders(t *testing.T, b *billInstance, org string) (finalized, open int64) {
	t.Helper()
	ctx := context.Background()
	if err := b.db.NewRaw(`SELECT coalesce(sum(it.quantity), 0)::bigint FROM invoice_items it JOIN invoices i ON i.id = it.invoice_id
		WHERE i.organization_id = ? AND it.title = 'Pick & Pack orders'`, org).Scan(ctx, &finalized); err != nil {
		t.Fatal(err)
	}
	invs, err := b.prev.Handle(ctx, billingapp.PreviewInvoices{OrganizationID: org})
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range invs {
		for _, it := range inv.Items() {
			if it.Title() == "Pick & Pack orders" {
				open += it.Quantity().Milli() / 1000
			}
		}
	}
	return finalized, open
}

// Ships stretched across closes by a stock row held in another session:
// each ship read its time before the close, and commits after it. Every
// one of them is billed exactly once — on the invoice the close finalized
// or, late, on the open one — and none fails.
func TestBillingShipsRacingClosesAreEachBilledOnce(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 40)
	org := "org_racing"
	billStocked(t, b, org, 1_000)
	const n = 30
	ids := billPending(t, b, org, n)

	// A second session holds the stock row: every ship reads its time,
	// locks its shipment and waits for the row.
	holder, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, `SELECT 1 FROM product_stock WHERE product_id = ? FOR UPDATE`, "prod_"+org); err != nil {
		t.Fatal(err)
	}
	ship := billShipper(b)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, id := range ids {
		wg.Go(func() {
			_, err := ship.Handle(ctx, warehouseapp.ShipShipment{WarehouseID: "wh_" + org, ShipmentID: id, Carrier: "UPS",
				TrackingNumber: fmt.Sprintf("1Z%016d", i)})
			errs <- err
		})
	}
	pgtest.WaitForLockWaiters(t, b.db, 1)
	time.Sleep(200 * time.Millisecond) // the other ships reach the row too (more waiters make a harder race, not a different one)

	// Closes while every ship waits, each finalizing what was billed so
	// far (nothing of these ships).
	for _, at := range []string{"2030-11-20T11:00:00Z", "2030-11-20T11:30:00Z"} {
		clock.set(utc(at))
		if _, err := b.close.Handle(ctx, billingapp.ClosePeriod{OrganizationID: org}); err != nil {
			t.Fatal(err)
		}
	}
	// A close racing the ships as they commit.
	closed := make(chan error, 1)
	go func() {
		clock.set(utc("2030-11-20T12:00:00Z"))
		_, err := b.close.Handle(ctx, billingapp.ClosePeriod{OrganizationID: org})
		closed <- err
	}()
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("ship: %v", err)
		}
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	finalized, open := billPickPackOrders(t, b, org)
	if finalized+open != n {
		t.Fatalf("%d shipped, %d Pick & Pack orders billed (%d finalized, %d open)", n, finalized+open, finalized, open)
	}
	var charges, late int
	if err := b.db.NewRaw(`SELECT count(*), count(*) FILTER (WHERE for_period <> '') FROM billing_charges
		WHERE organization_id = ? AND fee = 'pick_pack_order'`, org).Scan(ctx, &charges, &late); err != nil {
		t.Fatal(err)
	}
	if charges != n || late == 0 {
		t.Fatalf("%d charges (%d late), want %d, some late", charges, late, n)
	}
}

// billing close twice, and at once from several places: the first
// finalizes the period with its minimum, the others finalize nothing; no
// later period bills a minimum until a card from a later day.
func TestBillingCloseOffboards(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 8)
	org := "org_leaving"
	billStocked(t, b, org, 0) // nothing stored: no storage charged after the close
	var wg sync.WaitGroup
	results := make(chan ports.FinalizedInvoice, 4)
	for range 4 {
		wg.Go(func() {
			f, err := b.close.Handle(ctx, billingapp.ClosePeriod{OrganizationID: org})
			if err != nil {
				t.Error(err)
			}
			results <- f
		})
	}
	wg.Wait()
	close(results)
	invoices := 0
	for f := range results {
		if f.Key != "" {
			invoices++
			if f.TotalAmount != 5_000 {
				t.Errorf("the close's invoice totals %d, want the minimum 5000", f.TotalAmount)
			}
		}
	}
	if invoices != 1 {
		t.Fatalf("%d invoices from four closes at once, want 1", invoices)
	}
	clock.set(utc("2030-11-21T10:00:00Z"))
	if f, err := b.close.Handle(ctx, billingapp.ClosePeriod{OrganizationID: org}); err != nil || f.Key != "" {
		t.Fatalf("a close the next day with nothing charged: %+v, %v", f, err)
	}
	// Months later nothing was charged: no minimum, no invoice.
	clock.set(utc("2031-02-02T00:00:00Z"))
	if res, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil || res.Invoices() != 0 {
		t.Fatalf("runs after the off-boarding: %+v, %v", res.Finalized, err)
	}
	// A card from a later day brings the minimum back.
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Card: billExampleCard(org, "2031-02-10")}); err != nil {
		t.Fatal(err)
	}
	clock.set(utc("2031-03-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil || res.Invoices() != 1 || res.Finalized[len(res.Finalized)-1].TotalAmount != 5_000 {
		t.Fatalf("February after a new card: %+v, %v", res.Finalized, err)
	}
}

// A run a month late issues the invoice when it runs: created then, due
// BILLING_TERMS later, and still unpaid (not born overdue).
func TestBillingInvoiceFinalizedAMonthLate(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 4)
	org := "org_late_run"
	billStocked(t, b, org, 100)
	late := utc("2031-01-15T09:00:00Z")
	clock.set(late)
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil || res.Invoices() != 2 {
		t.Fatalf("run: %+v, %v", res.Finalized, err)
	}
	for _, f := range res.Finalized {
		inv := f.Invoice
		if !inv.CreatedAt().Equal(late) || !inv.DueDate().Equal(late.Add(720*time.Hour)) || inv.Status() != invoicing.InvoiceUnpaid {
			t.Errorf("%s: created %s, due %s, %s; want created at the run, due 30 days later, unpaid",
				f.Key, inv.CreatedAt(), inv.DueDate(), inv.Status())
		}
		if y := f.Key[4:8]; y != "2031" {
			t.Errorf("key %s: want the year of finalization", f.Key)
		}
	}
}

// billHoldStock holds org's stock row in a session of its own until the
// returned function releases it: a fact that moves the stock waits there,
// after reading its time and before its billing.
func billHoldStock(t *testing.T, b *billInstance, org string) (release func()) {
	t.Helper()
	ctx := context.Background()
	holder, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, `SELECT 1 FROM product_stock WHERE product_id = ? FOR UPDATE`, "prod_"+org); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if err := holder.Rollback(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// billStorageAgrees checks every day of storage of org from first to
// last (UTC days) against a recomputation from the stock ledger: the units
// on hand at the end of the day, billed once.
func billStorageAgrees(t *testing.T, b *billInstance, org, first, last string) {
	t.Helper()
	var wrong []struct {
		Day      time.Time `bun:"day"`
		Expected int64     `bun:"expected"`
		Billed   int64     `bun:"billed"`
		Charges  int64     `bun:"charges"`
	}
	err := b.db.NewRaw(`WITH days AS (SELECT d::date AS day FROM generate_series(?::date, ?::date, interval '1 day') d),
	expected AS (SELECT day, (SELECT coalesce(sum(quantity), 0)::bigint FROM stock_movements m
		WHERE m.organization_id = ? AND m.product_id IS NOT NULL AND m.occurred_at < (day + 1)::timestamp AT TIME ZONE 'UTC') AS q FROM days),
	billed AS (SELECT split_part(source_id, '@', 2)::date AS day, (sum(quantity_milli) / 1000)::bigint AS q, count(*) AS n
		FROM billing_charges WHERE organization_id = ? AND fee = 'storage_unit_month' GROUP BY 1)
	SELECT e.day, e.q AS expected, coalesce(b.q, 0) AS billed, coalesce(b.n, 0) AS charges
	FROM expected e LEFT JOIN billed b USING (day)
	WHERE e.q <> coalesce(b.q, 0) OR coalesce(b.n, 0) <> CASE WHEN e.q > 0 THEN 1 ELSE 0 END ORDER BY 1`,
		first, last, org, org).Scan(context.Background(), &wrong)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wrong {
		t.Errorf("storage of %s: %d units billed in %d charge(s), the ledger says %d", w.Day.Format(time.DateOnly), w.Billed, w.Charges, w.Expected)
	}
}

// A receipt dated back into days whose storage is billed, paused after
// its own statements and before its commit, while that night's storage
// accrual starts: whichever commits first, the days the receipt changed
// are billed as the ledger says (each must see the other, never a snapshot
// without it).
func TestBillingReceiptDatedBackRacingStorage(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 8)
	org := "org_late_receipt"
	billStocked(t, b, org, 100)
	billRunAt(t, b, clock, clock.Now()) // storage through November 19
	// The receipt's transaction pauses at its event, after its billing.
	paused, resume := make(chan struct{}), make(chan struct{})
	uow := pausingEvents{UnitOfWork: b.deps.UnitOfWork, pause: func() {
		close(paused)
		<-resume
	}}
	receiver := warehouseapp.NewRecordWarehouseReceiptHandler(uow, b.deps.Clock, system.IDs{},
		billingapp.NewReportBilling(b.deps))
	received := make(chan error, 1)
	go func() {
		at := utc("2030-11-10T09:00:00Z")
		_, err := receiver.Handle(ctx, warehouseapp.RecordWarehouseReceipt{WarehouseID: "wh_" + org, OrganizationID: org,
			Reference: "late-1", ReceivedAt: &at, Lines: []whside.ReceiptLine{{Kind: shipping.KindProduct, ItemID: "prod_" + org, Quantity: 40}}})
		received <- err
	}()
	select {
	case <-paused:
	case err := <-received:
		t.Fatalf("the receipt did not reach its event: %v", err)
	}
	clock.set(utc("2030-11-21T00:05:00Z"))
	ran := make(chan error, 1)
	go func() { // the night's storage, November 20, while the receipt is uncommitted
		_, err := b.run.Handle(ctx, billingapp.RunBilling{})
		ran <- err
	}()
	pgtest.WaitForLockWaiters(t, b.db, 1)
	close(resume)
	if err := <-received; err != nil {
		t.Fatal(err)
	}
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	billRunAt(t, b, clock, utc("2030-11-22T00:05:00Z"))
	billStorageAgrees(t, b, org, "2030-11-01", "2030-11-21")
}

// A ship at 23:59:59, stretched past midnight by a held stock row, commits
// after the run that billed that day's storage: the day is billed again at
// the stock it had left.
func TestBillingShipAtMidnightAfterTheRun(t *testing.T) {
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 8)
	org := "org_midnight"
	billStocked(t, b, org, 100)
	ids := billPending(t, b, org, 1)
	billRunAt(t, b, clock, clock.Now())
	clock.set(utc("2030-11-20T23:59:59Z"))
	release := billHoldStock(t, b, org)
	shipped := make(chan error, 1)
	go func() {
		shipped <- billShipOne(b, org, ids[0])
	}()
	billWaitOrFail(t, b, shipped)
	billRunAt(t, b, clock, utc("2030-11-21T00:00:30Z")) // November 20 billed at 100 units
	release()
	if err := <-shipped; err != nil {
		t.Fatal(err)
	}
	billRunAt(t, b, clock, utc("2030-11-22T00:05:00Z"))
	billStorageAgrees(t, b, org, "2030-11-01", "2030-11-21")
}

// billing close while a run finalizes the same organization's month (the
// run stretched by its period's row, held in another session): the month
// is finalized once, by the run; the close finalizes what came after it.
func TestBillingCloseDuringAFinalization(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 8)
	org := "org_close_run"
	billStocked(t, b, org, 0)
	clock.set(utc("2030-12-02T10:00:00Z"))
	holder, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, `SELECT 1 FROM billing_periods WHERE organization_id = ? AND status = 'open' FOR UPDATE`, org); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() {
		_, err := b.run.Handle(ctx, billingapp.RunBilling{})
		ran <- err
	}()
	pgtest.WaitForLockWaiters(t, b.db, 1)
	closed := make(chan error, 1)
	var closing ports.FinalizedInvoice
	go func() {
		var err error
		closing, err = b.close.Handle(ctx, billingapp.ClosePeriod{OrganizationID: org})
		closed <- err
	}()
	pgtest.WaitForLockWaiters(t, b.db, 2)
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := b.db.NewRaw(`SELECT name FROM invoices WHERE organization_id = ? ORDER BY key`, org).Scan(ctx, &names); err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 || names[0] != "Fulfillment, November 2030" || closing.Key == "" {
		t.Fatalf("invoices %q (the close: %+v), want November once, then the close's", names, closing)
	}
}

// billWaitOrFail waits until a session waits for a lock, failing at once
// when the fact's use case answered instead (it must wait on the held row).
func billWaitOrFail(t *testing.T, b *billInstance, done chan error) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("the fact did not wait for the held stock row: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	pgtest.WaitForLockWaiters(t, b.db, 1)
}

// The minimum tops up the charges, and a credit applies after it: a
// shipment of $2.50 and a $10.00 credit in a month with a $50.00 minimum
// bill $40.00 (a top-up of $47.50), not the minimum.
func TestBillingMinimumWithACredit(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 4)
	org := "org_min_credit"
	billStocked(t, b, org, 0)
	billExec(t, b.db, `UPDATE product_stock SET on_hand = 5 WHERE product_id = ?`, "prod_"+org) // nothing stored before the ship
	billExec(t, b.db, `INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, occurred_at)
		VALUES (?, ?, ?, 5, 'opening', '2030-11-20T10:00:00Z')`, org, "wh_"+org, "prod_"+org)
	ids := billPending(t, b, org, 1)
	if err := billShipOne(b, org, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{OrganizationID: org, Reference: "goodwill", Title: "Goodwill credit",
		Quantity: "1", UnitCost: -1_000}); err != nil {
		t.Fatal(err)
	}
	billExec(t, b.db, `UPDATE rate_cards SET storage_unit_month = 0 WHERE organization_id = ?`, org)
	clock.set(utc("2030-11-20T12:00:00Z"))
	f, err := b.close.Handle(ctx, billingapp.ClosePeriod{OrganizationID: org})
	if err != nil {
		t.Fatal(err)
	}
	billWantLines(t, billLines(f.Invoice), []billLine{
		{"Pick & Pack orders", "wh_" + org + ": 1 shipment", "1", 250, 250},
		{"Goodwill credit", "1 charge", "1", -1_000, -1_000},
		{"Monthly minimum", "minimum $50.00 for November 1–20, 2030", "1", 4_750, 4_750},
	})
	if f.TotalAmount != 4_000 || f.Invoice.Status() != invoicing.InvoiceUnpaid {
		t.Fatalf("total %d, %s; want 4000, unpaid", f.TotalAmount, f.Invoice.Status())
	}
}

// pausingEvents is a unit of work whose transactions call pause when they
// record an event, then record it.
type pausingEvents struct {
	ports.UnitOfWork
	pause func()
}

func (u pausingEvents) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	return u.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		r.Events = pausingRecorder{EventRecorder: r.Events, pause: u.pause}
		return fn(ctx, r)
	})
}

type pausingRecorder struct {
	ports.EventRecorder
	pause func()
}

func (p pausingRecorder) Record(ctx context.Context, e ports.Event) error {
	p.pause()
	return p.EventRecorder.Record(ctx, e)
}
