package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	"github.com/acme3pl/fulfillment/adapters/system"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
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
	err := uowOf(b, pgfixture.Repositories).Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, fixtureports.Fixture{
			Organizations: []domain.Organization{{ID: org, Name: "Name of " + org}},
			Warehouses:    []fixtureports.Warehouse{{Warehouse: shipWarehouse("wh_"+org, "DC of "+org, true), Organizations: []string{org}}},
			Inventory:     []shipping.InventoryItem{shipItem(org, shipping.KindProduct, "prod_"+org, "TEE-"+org)},
			Stock:         []shipping.Stock{{WarehouseID: "wh_" + org, Kind: shipping.KindProduct, ItemID: "prod_" + org, OnHand: onHand}},
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.set.Handle(context.Background(), billingapp.SetRateCard{Actor: operator, Card: billExampleCard(org, "2030-11-01")}); err != nil {
		t.Fatal(err)
	}
}

// newBillStocked is a billing instance of conns connections, in UTC, on a
// database of its own, its clock at November 20, 2030, 10:00, with org
// stocked with onHand units (billStocked).
func newBillStocked(t *testing.T, org string, onHand int64, conns int) (*billInstance, *billClock) {
	t.Helper()
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, conns)
	billStocked(t, b, org, onHand)
	return b, clock
}

// billPending makes n submitted Pick & Pack shipments of one unit each.
func billPending(t *testing.T, b *billInstance, org string, n int) []string {
	t.Helper()
	uow := uowOf(b, pgshipping.Repositories)
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
	return warehouseapp.NewShipShipmentHandler(uowOf(b, pgwarehouse.Repositories), b.deps.Clock, billingapp.NewReportBilling(b.deps))
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
	org := "org_racing"
	b, clock := newBillStocked(t, org, 1_000, 40)
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
		if _, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org}); err != nil {
			t.Fatal(err)
		}
	}
	// A close racing the ships as they commit.
	closed := make(chan error, 1)
	go func() {
		clock.set(utc("2030-11-20T12:00:00Z"))
		_, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
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
	org := "org_leaving"
	b, clock := newBillStocked(t, org, 0, 8) // nothing stored: no storage charged after the close
	var wg sync.WaitGroup
	results := make(chan billingports.FinalizedInvoice, 4)
	for range 4 {
		wg.Go(func() {
			f, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
			if err != nil {
				t.Error(err)
			}
			results <- f.FinalizedInvoice
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
	if f, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org}); err != nil || f.Key != "" {
		t.Fatalf("a close the next day with nothing charged: %+v, %v", f, err)
	}
	// Months later nothing was charged: no minimum, no invoice.
	clock.set(utc("2031-02-02T00:00:00Z"))
	if res, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil || res.Invoices() != 0 {
		t.Fatalf("runs after the off-boarding: %+v, %v", res.Finalized, err)
	}
	// A card from a later day brings the minimum back.
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: billExampleCard(org, "2031-02-10")}); err != nil {
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
	org := "org_late_run"
	b, clock := newBillStocked(t, org, 100, 4)
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
