package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	"github.com/acme3pl/fulfillment/adapters/system"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// The warehouse's side of shipments: ship (stock consumed, movements
// written) and the warehouse's list, through the real use cases.

// shipWarehouseFixture seeds an organization named after name
// (shipNamer) with a warehouse, two products and two cartons, each with on
// hand onHand at the warehouse, and a second warehouse serving the same
// organization.
func shipWarehouseFixture(t *testing.T, name string, onHand int64) (org, wh, other string, products, cartons [2]string) {
	t.Helper()
	org = shipNamer()(name)
	wh, other = "wh_"+org, "wh_"+org+"_other"
	products = [2]string{"prod_" + org + "_1", "prod_" + org + "_2"}
	cartons = [2]string{"ctn_" + org + "_1", "ctn_" + org + "_2"}
	var items []shipping.InventoryItem
	var stock []shipping.Stock
	for i := range 2 {
		items = append(items, shipItem(org, shipping.KindProduct, products[i], fmt.Sprintf("P%d-%s", i, org)),
			shipItem(org, shipping.KindCarton, cartons[i], fmt.Sprintf("C%d-%s", i, org)))
		stock = append(stock, shipping.Stock{WarehouseID: wh, Kind: shipping.KindProduct, ItemID: products[i], OnHand: onHand},
			shipping.Stock{WarehouseID: wh, Kind: shipping.KindCarton, ItemID: cartons[i], OnHand: onHand})
	}
	load(t, fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: org, Name: "Name of " + org}},
		Warehouses: []fixtureports.Warehouse{
			{Warehouse: shipWarehouse(wh, "Ship DC", true), Organizations: []string{org}},
			{Warehouse: shipWarehouse(other, "Other DC", true), Organizations: []string{org}},
		},
		Inventory: items, Stock: stock,
	})
	return org, wh, other, products, cartons
}

// shipPendingOf makes a submitted shipment of kind with lines.
func (u shipUseCases) pendingOf(t *testing.T, org, wh string, kind shipping.ShipmentKind, lines ...shipping.ShipmentLine) string {
	t.Helper()
	s, err := u.create.Handle(context.Background(), shippingapp.CreateShipment{OrganizationID: org, Kind: kind, WarehouseID: wh, Lines: lines})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.submit.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: s.ID()}); err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

func shipShipper(db *bun.DB) *warehouseapp.ShipShipmentHandler {
	return warehouseapp.NewShipShipmentHandler(postgres.NewUnitOfWork(db, pgwarehouse.Repositories), system.Clock{}, pgtest.NoBilling{})
}

func shipShipIt(h *warehouseapp.ShipShipmentHandler, wh, id, number string) (warehouseapp.ShipResult, error) {
	return h.Handle(context.Background(), warehouseapp.ShipShipment{WarehouseID: wh, ShipmentID: id, Carrier: "UPS", TrackingNumber: number})
}

// shipMovement is a stock movement as stored.
type shipMovement struct {
	WarehouseID string    `bun:"warehouse_id"`
	ProductID   *string   `bun:"product_id"`
	CartonID    *string   `bun:"carton_id"`
	Quantity    int64     `bun:"quantity"`
	Reason      string    `bun:"reason"`
	ShipmentID  string    `bun:"shipment_id"`
	OccurredAt  time.Time `bun:"occurred_at"`
}

func shipMovements(t *testing.T, db *bun.DB, org string) []shipMovement {
	t.Helper()
	return scanQuery[[]shipMovement](t, db, `SELECT warehouse_id, product_id, carton_id, quantity, reason, shipment_id, occurred_at
		FROM stock_movements WHERE organization_id = ? AND reason = 'shipment' ORDER BY id`, org)
}

func TestShipConsumesStockAndWritesMovements(t *testing.T) {
	org, wh, _, products, cartons := shipWarehouseFixture(t, "org_ship_wh", 10)
	db := shipDB(t, 2)
	u := newShipUseCases(db)
	pp := u.pendingOf(t, org, wh, shipping.PickPack, shipping.ShipmentLine{ItemID: products[1], Quantity: 3},
		shipping.ShipmentLine{ItemID: products[0], Quantity: 2}, shipping.ShipmentLine{ItemID: products[1], Quantity: 1})
	spd := u.pendingOf(t, org, wh, shipping.SPD, shipping.ShipmentLine{ItemID: cartons[0], Quantity: 10})
	shipWantStock(t, db, "product_stock", wh, products[1], 10, 4)

	queries := shipCountQueries(db)
	res, err := shipShipIt(shipShipper(db), wh, pp, "1Z999AA10123456784")
	if err != nil {
		t.Fatal(err)
	}
	// BEGIN, the shipment locked, its lines, the stock and movements, the
	// shipment stored, COMMIT.
	if got := queries.Load(); got > 6 {
		t.Errorf("a ship sent %d statements, want at most 6", got)
	}
	s := res.Shipment
	if res.Replay || s.Status() != shipping.ShipmentShipped || s.ShippedAt() == nil || s.Tracking() == nil {
		t.Fatalf("replay %v status %s shipped %v tracking %v", res.Replay, s.Status(), s.ShippedAt(), s.Tracking())
	}
	shipWantStock(t, db, "product_stock", wh, products[1], 6, 0)
	shipWantStock(t, db, "product_stock", wh, products[0], 8, 0)
	ms := shipMovements(t, db, org)
	if len(ms) != 2 {
		t.Fatalf("%d movements, want one per item (2): %+v", len(ms), ms)
	}
	want := map[string]int64{products[0]: -2, products[1]: -4}
	for _, m := range ms {
		if m.ProductID == nil || want[*m.ProductID] != m.Quantity || m.ShipmentID != pp || m.WarehouseID != wh ||
			!m.OccurredAt.Equal(*s.ShippedAt()) {
			t.Errorf("movement %+v, want one of %v at %v", m, want, s.ShippedAt())
		}
	}
	// The organization reads it shipped, with its tracking.
	got, err := postgres.NewRepositories(db, pgwarehouse.Repositories).Shipments.Get(context.Background(), org, pp)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status() != shipping.ShipmentShipped || !got.ShippedAt().Equal(*s.ShippedAt()) ||
		*got.Tracking() != (shipping.Tracking{Carrier: "UPS", Number: "1Z999AA10123456784"}) {
		t.Fatalf("stored: status %s shipped %v tracking %+v", got.Status(), got.ShippedAt(), got.Tracking())
	}
	// SPD: its cartons, to zero on hand.
	if _, err := shipShipIt(shipShipper(db), wh, spd, "1Z2"); err != nil {
		t.Fatal(err)
	}
	shipWantStock(t, db, "carton_stock", wh, cartons[0], 0, 0)
	if ms := shipMovements(t, db, org); len(ms) != 3 || ms[2].CartonID == nil || *ms[2].CartonID != cartons[0] || ms[2].Quantity != -10 {
		t.Fatalf("movements after the SPD ship: %+v", ms)
	}
}

func TestShipNeverMakesOnHandNegative(t *testing.T) {
	org, wh, _, products, _ := shipWarehouseFixture(t, "org_ship_short", 2)
	db := shipDB(t, 2)
	u := newShipUseCases(db)
	// Pick & Pack reserves without a check: 3 of product 0 are reserved
	// with 2 on hand.
	id := u.pendingOf(t, org, wh, shipping.PickPack, shipping.ShipmentLine{ItemID: products[1], Quantity: 1},
		shipping.ShipmentLine{ItemID: products[0], Quantity: 3})
	_, err := shipShipIt(shipShipper(db), wh, id, "1Z3")
	var short *shipping.OnHandShortageError
	if !errors.As(err, &short) || short.Kind != shipping.KindProduct || len(short.Items) != 1 ||
		short.Items[0] != (shipping.StockShortage{ItemID: products[0], SKU: "P0-" + org, Requested: 3, Available: 2}) {
		t.Fatalf("ship: %v %+v, want product 0 short: 3 requested, 2 on hand", err, short)
	}
	shipWantStock(t, db, "product_stock", wh, products[0], 2, 3)
	shipWantStock(t, db, "product_stock", wh, products[1], 2, 1)
	if ms := shipMovements(t, db, org); len(ms) != 0 {
		t.Fatalf("movements of a refused ship: %+v", ms)
	}
	if s, err := postgres.NewRepositories(db, pgwarehouse.Repositories).Shipments.Get(context.Background(), org, id); err != nil || s.Status() != shipping.ShipmentPending {
		t.Fatalf("after the refused ship: %v %v", s.Status(), err)
	}
}

func TestShipIsFoundAtItsWarehouseOnly(t *testing.T) {
	org, wh, other, _, cartons := shipWarehouseFixture(t, "org_ship_where", 5)
	db := shipDB(t, 2)
	u := newShipUseCases(db)
	id := u.pendingOf(t, org, wh, shipping.SPD, shipping.ShipmentLine{ItemID: cartons[0], Quantity: 1})
	draft := u.draft(t, org, wh, shipping.ShipmentLine{ItemID: cartons[0], Quantity: 1})
	for _, tt := range []struct {
		wh, id  string
		wantErr error
	}{
		{other, id, domain.ErrNotFound},
		{wh, "shp_unknown", domain.ErrNotFound},
		{wh, draft, domain.ErrInvalidState},
	} {
		if _, err := shipShipIt(shipShipper(db), tt.wh, tt.id, "1Z4"); !errors.Is(err, tt.wantErr) {
			t.Errorf("ship %s at %s: %v, want %v", tt.id, tt.wh, err, tt.wantErr)
		}
	}
	shipWantStock(t, db, "carton_stock", wh, cartons[0], 5, 1)
}

// THE RACES. A ship racing the organization's cancel of the same shipment:
// exactly one of the two wins, the other is invalid_state, and the stock
// shows only the winner — consumed for a ship, released for a cancel.
func TestShipAndCancelRace(t *testing.T) {
	const shipments = 12
	org, wh, _, _, cartons := shipWarehouseFixture(t, "org_ship_vs_cancel", shipments)
	// Two pools: two servers' worth of connections.
	shipDBs := []*bun.DB{shipDB(t, 6), shipDB(t, 6)}
	u := newShipUseCases(shipDBs[0])
	ids := make([]string, shipments)
	for i := range ids {
		ids[i] = u.pendingOf(t, org, wh, shipping.SPD, shipping.ShipmentLine{ItemID: cartons[0], Quantity: 1},
			shipping.ShipmentLine{ItemID: cartons[1], Quantity: 1})
	}
	var fns []func() error
	for i, id := range ids {
		ship, cancel := shipShipper(shipDBs[i%2]), newShipUseCases(shipDBs[(i+1)%2]).cancel
		fns = append(fns,
			func() error { _, err := shipShipIt(ship, wh, id, "1Z"+id); return err },
			func() error {
				_, err := cancel.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: id})
				return err
			})
	}
	errs := shipRun(fns)
	shipped := 0
	for i := 0; i < len(errs); i += 2 {
		shipErr, cancelErr := errs[i], errs[i+1]
		switch {
		case shipErr == nil && errors.Is(cancelErr, domain.ErrInvalidState):
			shipped++
		case cancelErr == nil && errors.Is(shipErr, domain.ErrInvalidState):
		default:
			t.Errorf("shipment %d: ship %v, cancel %v; want exactly one to win, the other invalid_state", i/2, shipErr, cancelErr)
		}
	}
	t.Logf("%d of %d shipped, the others cancelled", shipped, shipments)
	for _, c := range cartons {
		shipWantStock(t, shipDBs[0], "carton_stock", wh, c, int64(shipments-shipped), 0)
	}
	if ms := shipMovements(t, shipDBs[0], org); len(ms) != 2*shipped {
		t.Fatalf("%d movements, want 2 per shipped shipment (%d)", len(ms), 2*shipped)
	}
	var counts struct {
		Shipped   int `bun:"shipped"`
		Cancelled int `bun:"cancelled"`
	}
	if err := shipDBs[0].NewRaw(`SELECT count(*) FILTER (WHERE status = 'shipped') AS shipped,
		count(*) FILTER (WHERE status = 'cancelled') AS cancelled FROM shipments WHERE organization_id = ?`, org).
		Scan(context.Background(), &counts); err != nil {
		t.Fatal(err)
	}
	if counts.Shipped != shipped || counts.Cancelled != shipments-shipped {
		t.Fatalf("stored: %+v, want %d shipped", counts, shipped)
	}
}

// Ten identical ships at once, on two pools: one effect; the others are
// replays answered with the same shipment.
func TestConcurrentIdenticalShips(t *testing.T) {
	org, wh, _, products, _ := shipWarehouseFixture(t, "org_ship_ten", 50)
	pools := []*bun.DB{shipDB(t, 5), shipDB(t, 5)}
	u := newShipUseCases(pools[0])
	id := u.pendingOf(t, org, wh, shipping.PickPack, shipping.ShipmentLine{ItemID: products[0], Quantity: 7})
	calls := make([]func() (warehouseapp.ShipResult, error), 10)
	for i := range calls {
		h := shipShipper(pools[i%2])
		calls[i] = func() (warehouseapp.ShipResult, error) { return shipShipIt(h, wh, id, "1Z999AA10123456784") }
	}
	// Every ship answers the same shippedAt (an instant: in UTC).
	replays := len(calls) - shipRunSame(t, "ship", calls, func(r warehouseapp.ShipResult) bool { return !r.Replay },
		func(r warehouseapp.ShipResult) string { return r.Shipment.ShippedAt().UTC().Format(time.RFC3339Nano) })
	if replays != 9 {
		t.Fatalf("%d replays, want 9 (one ship took effect)", replays)
	}
	shipWantStock(t, pools[0], "product_stock", wh, products[0], 43, 0)
	if ms := shipMovements(t, pools[0], org); len(ms) != 1 || ms[0].Quantity != -7 {
		t.Fatalf("movements %+v, want one of -7", ms)
	}
	// Another tracking number for the shipped shipment is refused.
	if _, err := shipShipIt(shipShipper(pools[1]), wh, id, "1Z999AA10123456785"); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("another tracking: %v, want invalid_state", err)
	}
}

func TestShipmentRepositoryListAtWarehouse(t *testing.T) {
	n := shipNamer()
	orgA, orgB := n("org_ship_list_a"), n("org_ship_list_b")
	wh := n("wh_ship_list")
	load(t, fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: orgA, Name: "Alpha"}, {ID: orgB, Name: "Beta"}},
		Warehouses: []fixtureports.Warehouse{
			{Warehouse: shipWarehouse(wh, "List DC", true), Organizations: []string{orgA, orgB}},
			{Warehouse: shipWarehouse(wh+"_2", "Other DC", true), Organizations: []string{orgA}},
		},
		Inventory: []shipping.InventoryItem{
			shipItem(orgA, shipping.KindProduct, "prod_"+orgA, "A"), shipItem(orgB, shipping.KindProduct, "prod_"+orgB, "B"),
		},
	})
	db := shipDB(t, 2)
	repo := postgres.NewRepositories(db, pgwarehouse.Repositories).Shipments
	uow := postgres.NewUnitOfWork(db, pgwarehouse.Repositories)
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	// Submitted at t0 + minutes (a cancelled one at 0 never was), in an
	// order that is not creation order.
	store := func(org, warehouse, id string, minutes int, status shipping.ShipmentStatus) {
		t.Helper()
		s := shipNew(t, shipping.NewShipmentParams{ID: id, OrganizationID: org, Kind: shipping.PickPack,
			Warehouse: domain.WarehouseRef{ID: warehouse}, Lines: []shipping.ShipmentLine{{ItemID: "prod_" + org, Quantity: 1}}, Now: t0})
		if status == shipping.ShipmentPending || (status == shipping.ShipmentCancelled && minutes > 0) {
			if err := s.Submit(t0.Add(time.Duration(minutes) * time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		if status == shipping.ShipmentCancelled {
			if _, err := s.Cancel(t0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if err := uow.Do(context.Background(), func(ctx context.Context, r warehouseports.Repositories) error { return r.Shipments.Create(ctx, s) }); err != nil {
			t.Fatal(err)
		}
	}
	store(orgA, wh, n("shp_l1"), 3, shipping.ShipmentPending)
	store(orgB, wh, n("shp_l2"), 1, shipping.ShipmentPending)
	store(orgA, wh, n("shp_l3"), 2, shipping.ShipmentPending)
	store(orgB, wh, n("shp_l0"), 2, shipping.ShipmentPending) // same time as l3: by ID
	store(orgA, wh, n("shp_l4"), 0, shipping.ShipmentDraft)
	store(orgA, wh, n("shp_l5"), 0, shipping.ShipmentCancelled) // cancelled as a draft: never the warehouse's
	store(orgA, wh, n("shp_l6"), 4, shipping.ShipmentCancelled)
	store(orgA, wh+"_2", n("shp_l7"), 0, shipping.ShipmentPending)

	ids := func(page []shippingports.WarehouseShipment) (out []string) {
		for _, ws := range page {
			out = append(out, ws.Shipment.ID()+"/"+ws.OrganizationName)
		}
		return out
	}
	page, more, err := repo.ListAtWarehouse(context.Background(), wh, shipping.ShipmentPending, ports.Page{Take: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{n("shp_l2") + "/Beta", n("shp_l0") + "/Beta", n("shp_l3") + "/Alpha"}
	if fmt.Sprint(ids(page)) != fmt.Sprint(want) || !more {
		t.Fatalf("page 1: %v more %v, want %v and more", ids(page), more, want)
	}
	if len(page[0].Shipment.Lines()) != 1 || page[0].Shipment.Lines()[0].SKU != "B" {
		t.Fatalf("lines of %s: %+v", page[0].Shipment.ID(), page[0].Shipment.Lines())
	}
	page, more, err = repo.ListAtWarehouse(context.Background(), wh, shipping.ShipmentPending, ports.Page{Skip: 3, Take: 3})
	if err != nil || fmt.Sprint(ids(page)) != fmt.Sprint([]string{n("shp_l1") + "/Alpha"}) || more {
		t.Fatalf("page 2: %v more %v err %v", ids(page), more, err)
	}
	page, _, err = repo.ListAtWarehouse(context.Background(), wh, shipping.ShipmentCancelled, ports.Page{Take: 10})
	if err != nil || fmt.Sprint(ids(page)) != fmt.Sprint([]string{n("shp_l6") + "/Alpha"}) {
		t.Fatalf("cancelled: %v %v", ids(page), err)
	}
}
