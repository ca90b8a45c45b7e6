package warehouse_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	"github.com/acme3pl/fulfillment/adapters/system"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	whside "github.com/acme3pl/fulfillment/domain/warehouse"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// Helpers of the receiving tests start with `recv`.

// recvWorld is one test's organization, warehouse and items.
type recvWorld struct {
	org, wh, other, prod, ctn string
}

// recvFixture loads an organization served by a warehouse holding 100
// cartons (an opening balance dated opened), a product with no stock, and
// a second warehouse that does not serve it; the fixture is loaded as the
// seed loads it.
func recvFixture(t *testing.T, opened time.Time) recvWorld {
	t.Helper()
	n := pgtest.Namer()
	w := recvWorld{org: n("org_recv"), wh: n("wh_recv"), other: n("wh_recv_x"), prod: n("prod_recv"), ctn: n("ctn_recv")}
	pgtest.Load(t, testDSN, recvFixtureDoc(w, opened))
	return w
}

func recvFixtureDoc(w recvWorld, opened time.Time) fixtureports.Fixture {
	return fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: w.org, Name: "Receiving"}},
		Warehouses: []fixtureports.Warehouse{
			{Warehouse: pgtest.Warehouse(w.wh, "Dock", true), Organizations: []string{w.org}},
			{Warehouse: pgtest.Warehouse(w.other, "Elsewhere", true)},
		},
		Inventory: []shipping.InventoryItem{
			pgtest.Item(w.org, shipping.KindProduct, w.prod, "P-RECV"),
			pgtest.Item(w.org, shipping.KindCarton, w.ctn, "C-RECV"),
		},
		Stock:    []shipping.Stock{{WarehouseID: w.wh, Kind: shipping.KindCarton, ItemID: w.ctn, OnHand: 100}},
		OpenedAt: opened,
	}
}

// recvMovement is a row of stock_movements.
type recvMovement struct {
	Item       string    `bun:"item"`
	Quantity   int64     `bun:"quantity"`
	Reason     string    `bun:"reason"`
	ReceiptID  string    `bun:"receipt_id"`
	OccurredAt time.Time `bun:"occurred_at"`
}

func recvMovements(t *testing.T, db *bun.DB, org string) []recvMovement {
	t.Helper()
	out := pgtest.ScanQuery[[]recvMovement](t, db, `SELECT coalesce(product_id, carton_id) AS item, quantity, reason, coalesce(receipt_id, '') AS receipt_id, occurred_at
FROM stock_movements WHERE organization_id = ? ORDER BY id`, org)
	for i := range out {
		out[i].OccurredAt = out[i].OccurredAt.UTC()
	}
	return out
}

// recvLedgerHolds checks the ledger's invariant for the organization: every
// balance is the sum of its item's movements at its warehouse.
func recvLedgerHolds(t *testing.T, db *bun.DB, org string) {
	t.Helper()
	pgtest.LedgerHolds(t, db, org)
}

func recvUseCase(db *bun.DB, billing warehouseports.ReportBilling) *warehouseapp.RecordWarehouseReceiptHandler {
	return warehouseapp.NewRecordWarehouseReceiptHandler(postgres.NewUnitOfWork(db, pgwarehouse.Repositories), system.Clock{}, system.IDs{}, billing)
}

// noBilling is pgtest.NoBilling.
type noBilling = pgtest.NoBilling

func TestSeedStockIsAnOpeningMovementOnce(t *testing.T) {
	opened := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	w := recvFixture(t, opened)
	db := pgtest.Pool(t, testDSN, 2)
	want := []recvMovement{{Item: w.ctn, Quantity: 100, Reason: "opening", OccurredAt: opened}}
	if got := recvMovements(t, db, w.org); !reflect.DeepEqual(got, want) {
		t.Fatalf("movements %+v, want %+v", got, want)
	}
	// The same document again, later: nothing changes, no second movement.
	doc := recvFixtureDoc(w, opened.Add(time.Hour))
	if counts := pgtest.Load(t, testDSN, doc); counts["stock"] != 0 {
		t.Fatalf("second load inserted %d stock rows", counts["stock"])
	}
	if got := recvMovements(t, db, w.org); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a second load: movements %+v, want %+v", got, want)
	}
	pgtest.WantStock(t, db, "carton_stock", w.wh, w.ctn, 100, 0)
	recvLedgerHolds(t, db, w.org)
}

func TestReceiptRaisesOnHandAndWritesMovements(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	db := pgtest.Pool(t, testDSN, 2)
	at := time.Now().UTC().Add(-30 * time.Minute).Truncate(time.Millisecond)
	res, err := recvUseCase(db, noBilling{}).Handle(context.Background(), warehouseapp.RecordWarehouseReceipt{
		WarehouseID: w.wh, OrganizationID: w.org, Reference: "ASN-1", ReceivedAt: &at,
		Lines: []whside.ReceiptLine{
			{Kind: shipping.KindProduct, ItemID: w.prod, Quantity: 40},
			{Kind: shipping.KindCarton, ItemID: w.ctn, Quantity: 5},
			{Kind: shipping.KindProduct, ItemID: w.prod, Quantity: 2},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created {
		t.Fatal("not created")
	}
	pgtest.WantStock(t, db, "product_stock", w.wh, w.prod, 42, 0)
	pgtest.WantStock(t, db, "carton_stock", w.wh, w.ctn, 105, 0)
	got := recvMovements(t, db, w.org)[1:]
	want := []recvMovement{
		{Item: w.prod, Quantity: 42, Reason: "receipt", ReceiptID: res.Report.ID(), OccurredAt: at},
		{Item: w.ctn, Quantity: 5, Reason: "receipt", ReceiptID: res.Report.ID(), OccurredAt: at},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("movements %+v, want %+v", got, want)
	}
	recvLedgerHolds(t, db, w.org)
}

func TestReceiptReferenceIsIdempotent(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	db := pgtest.Pool(t, testDSN, 2)
	uc := recvUseCase(db, noBilling{})
	ctx := context.Background()
	c := warehouseapp.RecordWarehouseReceipt{
		WarehouseID: w.wh, OrganizationID: w.org, Reference: "DOCK-7",
		Lines: []whside.ReceiptLine{{Kind: shipping.KindCarton, ItemID: w.ctn, Quantity: 3}, {Kind: shipping.KindProduct, ItemID: w.prod, Quantity: 1}},
	}
	first, err := uc.Handle(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	c.Lines[0], c.Lines[1] = c.Lines[1], c.Lines[0] // the same content in another order
	again, err := uc.Handle(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || !reflect.DeepEqual(again.Report, first.Report) {
		t.Fatalf("retry: created %v\n%+v\nwant the first\n%+v", again.Created, again.Report, first.Report)
	}
	c.Lines[0].Quantity = 2
	if _, err := uc.Handle(ctx, c); !errors.Is(err, whside.ErrReferenceConflict) {
		t.Fatalf("other content: %v, want reference conflict", err)
	}
	pgtest.WantStock(t, db, "carton_stock", w.wh, w.ctn, 103, 0)
	pgtest.WantStock(t, db, "product_stock", w.wh, w.prod, 1, 0)
	if got := len(recvMovements(t, db, w.org)); got != 3 {
		t.Fatalf("%d movements, want the opening and the first receipt's two", got)
	}

	// Refusals write nothing: another organization's warehouse, unknown items.
	c2 := c
	c2.Reference, c2.WarehouseID = "DOCK-8", w.other
	if _, err := uc.Handle(ctx, c2); !errors.Is(err, domain.ErrInvalidWarehouse) {
		t.Fatalf("a warehouse that does not serve the organization: %v", err)
	}
	c3 := c
	c3.Reference = "DOCK-9"
	c3.Lines = []whside.ReceiptLine{{Kind: shipping.KindCarton, ItemID: w.prod, Quantity: 1}}
	var ui *shipping.UnknownItemsError
	if _, err := uc.Handle(ctx, c3); !errors.As(err, &ui) || !reflect.DeepEqual(ui.IDs, []string{w.prod}) {
		t.Fatalf("a product named as a carton: %v", err)
	}
	if receipts := pgtest.ScanQuery[int](t, db, "SELECT count(*) FROM warehouse_receipts WHERE organization_id = ?", w.org); receipts != 1 {
		t.Fatalf("%d receipts stored, want 1", receipts)
	}
	recvLedgerHolds(t, db, w.org)
}

// THE RACE: receipts with one reference, sent at once through several
// "server instances" (a pool each), add their goods exactly once; every
// one of them answers with the same receipt.
func TestReceiptsWithOneReferenceRacing(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	const instances, each = 4, 6
	var calls []func() (warehouseapp.ReceiptResult, error)
	for range instances {
		uc := recvUseCase(pgtest.Pool(t, testDSN, 3), noBilling{})
		for range each {
			calls = append(calls, func() (warehouseapp.ReceiptResult, error) {
				return uc.Handle(context.Background(), warehouseapp.RecordWarehouseReceipt{
					WarehouseID: w.wh, OrganizationID: w.org, Reference: "ASN-RACE",
					Lines: []whside.ReceiptLine{{Kind: shipping.KindCarton, ItemID: w.ctn, Quantity: 7}},
				})
			})
		}
	}
	created := pgtest.RunSame(t, "receipt", calls, func(r warehouseapp.ReceiptResult) bool { return r.Created },
		func(r warehouseapp.ReceiptResult) string { return r.Report.ID() })
	if created != 1 {
		t.Fatalf("%d receipts created, want 1", created)
	}
	db := pgtest.Pool(t, testDSN, 1)
	pgtest.WantStock(t, db, "carton_stock", w.wh, w.ctn, 107, 0)
	if got := len(recvMovements(t, db, w.org)); got != 2 {
		t.Fatalf("%d movements, want the opening and one receipt", got)
	}
	recvLedgerHolds(t, db, w.org)
}

func TestOnHandAtAPastInstant(t *testing.T) {
	t0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	w := recvFixture(t, t0) // 100 cartons from t0
	db := pgtest.Pool(t, testDSN, 2)
	uc := recvUseCase(db, noBilling{})
	ctx := context.Background()
	receive := func(ref string, at time.Time, lines ...whside.ReceiptLine) {
		t.Helper()
		if _, err := uc.Handle(ctx, warehouseapp.RecordWarehouseReceipt{
			WarehouseID: w.wh, OrganizationID: w.org, Reference: ref, ReceivedAt: &at, Lines: lines,
		}); err != nil {
			t.Fatal(err)
		}
	}
	d1 := t0.Add(24 * time.Hour)
	d2 := t0.Add(48 * time.Hour)
	receive("A", d1, whside.ReceiptLine{Kind: shipping.KindProduct, ItemID: w.prod, Quantity: 10})
	receive("B", d2, whside.ReceiptLine{Kind: shipping.KindProduct, ItemID: w.prod, Quantity: 5},
		whside.ReceiptLine{Kind: shipping.KindCarton, ItemID: w.ctn, Quantity: 1})
	// A shipment-like change through the same ledger: 3 products leave on d2 + 1h.
	err := postgres.NewUnitOfWork(db, pgwarehouse.Repositories).Do(ctx, func(ctx context.Context, r warehouseports.Repositories) error {
		return r.Stock.Move(ctx, shipping.StockChange{
			OrganizationID: w.org, WarehouseID: w.wh, Reason: shipping.MovementOpening, OccurredAt: d2.Add(time.Hour),
			Deltas: []shipping.StockDelta{{Kind: shipping.KindProduct, ItemID: w.prod, Quantity: -3}},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	ledger := postgres.NewRepositories(db, pgwarehouse.Repositories).Stock
	carton := func(q int64) shipping.OnHand {
		return shipping.OnHand{WarehouseID: w.wh, Kind: shipping.KindCarton, ItemID: w.ctn, Quantity: q}
	}
	product := func(q int64) shipping.OnHand {
		return shipping.OnHand{WarehouseID: w.wh, Kind: shipping.KindProduct, ItemID: w.prod, Quantity: q}
	}
	tests := []struct {
		name string
		at   time.Time
		want []shipping.OnHand
	}{
		{"before the opening", t0, []shipping.OnHand{}},
		{"just after the opening", t0.Add(time.Millisecond), []shipping.OnHand{carton(100)}},
		{"at the first receipt: strictly before", d1, []shipping.OnHand{carton(100)}},
		{"the end of the first day", d1.Add(24 * time.Hour), []shipping.OnHand{carton(100), product(10)}},
		{"after the second receipt", d2.Add(time.Minute), []shipping.OnHand{carton(101), product(15)}},
		{"after the shipment", d2.Add(2 * time.Hour), []shipping.OnHand{carton(101), product(12)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ledger.OnHandAt(ctx, w.org, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("OnHandAt(%v) = %+v, want %+v", tt.at, got, tt.want)
			}
		})
	}
	recvLedgerHolds(t, db, w.org)
}

func TestStockLedgerNeverGoesNegative(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	db := pgtest.Pool(t, testDSN, 2)
	ctx := context.Background()
	move := func(kind shipping.ItemKind, item string, q int64) error {
		return postgres.NewUnitOfWork(db, pgwarehouse.Repositories).Do(ctx, func(ctx context.Context, r warehouseports.Repositories) error {
			return r.Stock.Move(ctx, shipping.StockChange{
				OrganizationID: w.org, WarehouseID: w.wh, Reason: shipping.MovementOpening, OccurredAt: time.Now(),
				Deltas: []shipping.StockDelta{{Kind: kind, ItemID: item, Quantity: q}},
			})
		})
	}
	err := move(shipping.KindCarton, w.ctn, -101)
	var short *shipping.OnHandShortageError
	if !errors.Is(err, shipping.ErrNegativeStock) || !errors.As(err, &short) || short.Kind != shipping.KindCarton ||
		len(short.Items) != 1 || short.Items[0].ItemID != w.ctn || short.Items[0].SKU == "" ||
		short.Items[0].Requested != 101 || short.Items[0].Available != 100 {
		t.Fatalf("taking 101 of 100: %v %+v, want ErrNegativeStock listing the carton", err, short)
	}
	if err := move(shipping.KindProduct, w.prod, -1); !errors.Is(err, shipping.ErrNegativeStock) {
		t.Fatalf("taking from no balance: %v, want ErrNegativeStock", err)
	}
	if err := move(shipping.KindCarton, w.ctn, -100); err != nil {
		t.Fatalf("taking all 100: %v", err)
	}
	pgtest.WantStock(t, db, "carton_stock", w.wh, w.ctn, 0, 0)
	if got := len(recvMovements(t, db, w.org)); got != 2 {
		t.Fatalf("%d movements, want the opening and the one that fit", got)
	}
	recvLedgerHolds(t, db, w.org)
}
