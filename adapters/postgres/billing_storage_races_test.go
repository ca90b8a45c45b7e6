package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	"github.com/acme3pl/fulfillment/adapters/system"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	whside "github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

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
// its own statements and before its commit, while that night's run
// starts: the run does not wait for it (the organization is busy: its
// storage is left to the next run), and the days the receipt changed are
// billed as the ledger says (each must see the other, never a snapshot
// without it).
func TestBillingReceiptDatedBackRacingStorage(t *testing.T) {
	ctx := context.Background()
	org := "org_late_receipt"
	b, clock := newBillStocked(t, org, 100, 8)
	billRunAt(t, b, clock, clock.Now()) // storage through November 19
	// The receipt's transaction pauses at its event, after its billing.
	paused, resume := make(chan struct{}), make(chan struct{})
	uow := pausingEvents{UnitOfWork: uowOf(b, pgwarehouse.Repositories), pause: func() {
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
	select {
	case err := <-ran:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the run waits for a receipt in flight")
	}
	close(resume)
	if err := <-received; err != nil {
		t.Fatal(err)
	}
	billRunAt(t, b, clock, utc("2030-11-22T00:05:00Z"))
	billStorageAgrees(t, b, org, "2030-11-01", "2030-11-21")
}

// A ship at 23:59:59, stretched past midnight by a held stock row, commits
// after the run that billed that day's storage: the day is billed again at
// the stock it had left.
func TestBillingShipAtMidnightAfterTheRun(t *testing.T) {
	org := "org_midnight"
	b, clock := newBillStocked(t, org, 100, 8)
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
	org := "org_close_run"
	b, clock := newBillStocked(t, org, 0, 8)
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
	var closing billingapp.Closed
	go func() {
		var err error
		closing, err = b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
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
	names := scanQuery[[]string](t, b.db, `SELECT name FROM invoices WHERE organization_id = ? ORDER BY key`, org)
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
	org := "org_min_credit"
	b, clock := newBillStocked(t, org, 0, 4)
	billExec(t, b.db, `UPDATE product_stock SET on_hand = 5 WHERE product_id = ?`, "prod_"+org) // nothing stored before the ship
	billExec(t, b.db, `INSERT INTO stock_movements (organization_id, warehouse_id, product_id, quantity, reason, occurred_at)
		VALUES (?, ?, ?, 5, 'opening', '2030-11-20T10:00:00Z')`, org, "wh_"+org, "prod_"+org)
	ids := billPending(t, b, org, 1)
	if err := billShipOne(b, org, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: org, Reference: "goodwill", Title: "Goodwill credit",
		Quantity: "1", UnitCost: -1_000}); err != nil {
		t.Fatal(err)
	}
	billExec(t, b.db, `UPDATE rate_card_fees SET cents = 0 WHERE organization_id = ? AND fee = 'storage_unit_month'`, org)
	clock.set(utc("2030-11-20T12:00:00Z"))
	f, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
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
	ports.UnitOfWork[warehouseports.Repositories]
	pause func()
}

func (u pausingEvents) Do(ctx context.Context, fn func(ctx context.Context, r warehouseports.Repositories) error) error {
	return u.UnitOfWork.Do(ctx, func(ctx context.Context, r warehouseports.Repositories) error {
		r.Events = pausingRecorder{EventRecorder: r.Events, pause: u.pause}
		return fn(ctx, r)
	})
}

type pausingRecorder struct {
	eventsports.EventRecorder
	pause func()
}

func (p pausingRecorder) Record(ctx context.Context, e eventsports.Event) error {
	p.pause()
	return p.EventRecorder.Record(ctx, e)
}
