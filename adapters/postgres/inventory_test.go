package postgres_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// shipInv names the records of one inventory fixture. Each test loads its
// own (the package's database is shared): organization org may use
// warehouses a ("Alpha"), b ("Bravo") and the inactive off; x ("Aardvark")
// belongs to another organization only.
type shipInv struct {
	org, otherOrg              string
	whA, whB, whOff, whX       string
	prod1, prod2, prod3, prodX string // SKUs P-B, P-A, P-C; prodX of otherOrg has P-A too
	ctn1, ctn2, ctn3           string
}

func shipInvFixture(t *testing.T, org string) shipInv {
	t.Helper()
	org = shipNamer()(org)
	n := func(kind, suffix string) string { return kind + "_" + org + "_" + suffix }
	f := shipInv{
		org: org, otherOrg: org + "_x",
		whA: n("wh", "a"), whB: n("wh", "b"), whOff: n("wh", "off"), whX: n("wh", "x"),
		prod1: n("prod", "1"), prod2: n("prod", "2"), prod3: n("prod", "3"), prodX: n("prod", "x"),
		ctn1: n("ctn", "1"), ctn2: n("ctn", "2"), ctn3: n("ctn", "3"),
	}
	load(t, fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: f.org, Name: "Inv"}, {ID: f.otherOrg, Name: "Other"}},
		Warehouses: []fixtureports.Warehouse{
			{Warehouse: shipWarehouse(f.whB, "Bravo", true), Organizations: []string{f.org}},
			{Warehouse: shipWarehouse(f.whA, "Alpha", true), Organizations: []string{f.org}},
			{Warehouse: shipWarehouse(f.whOff, "Closed", false), Organizations: []string{f.org}},
			{Warehouse: shipWarehouse(f.whX, "Aardvark", true), Organizations: []string{f.otherOrg}},
		},
		Inventory: []shipping.InventoryItem{
			shipItem(f.org, shipping.KindProduct, f.prod1, "P-B"),
			shipItem(f.org, shipping.KindProduct, f.prod2, "P-A"),
			shipItem(f.org, shipping.KindProduct, f.prod3, "P-C"),
			shipItem(f.org, shipping.KindCarton, f.ctn1, "CTN-1"),
			shipItem(f.org, shipping.KindCarton, f.ctn2, "CTN-2"),
			shipItem(f.org, shipping.KindCarton, f.ctn3, "CTN-3"),
			shipItem(f.otherOrg, shipping.KindProduct, f.prodX, "P-A"),
		},
		Stock: []shipping.Stock{
			{WarehouseID: f.whA, Kind: shipping.KindCarton, ItemID: f.ctn1, OnHand: 5},
			{WarehouseID: f.whB, Kind: shipping.KindCarton, ItemID: f.ctn1, OnHand: 3},
			{WarehouseID: f.whOff, Kind: shipping.KindCarton, ItemID: f.ctn1, OnHand: 7},
			{WarehouseID: f.whX, Kind: shipping.KindCarton, ItemID: f.ctn1, OnHand: 9},
			{WarehouseID: f.whA, Kind: shipping.KindCarton, ItemID: f.ctn2, OnHand: 2},
			{WarehouseID: f.whA, Kind: shipping.KindProduct, ItemID: f.prod2, OnHand: 40},
		},
	})
	return f
}

func TestInventoryReserveAndReleaseCartons(t *testing.T) {
	f := shipInvFixture(t, "org_ship_inv_rr")
	db := shipDB(t, 4)
	ctx := context.Background()
	wh := f.whA
	reserve := func(lines ...shipping.ShipmentLine) error {
		return postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			return r.Inventory.Reserve(ctx, f.org, wh, shipping.SPD, lines)
		})
	}
	release := func(lines ...shipping.ShipmentLine) error {
		return postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			return r.Inventory.Release(ctx, wh, shipping.SPD, lines)
		})
	}
	c1 := func(q int64) shipping.ShipmentLine {
		return shipping.ShipmentLine{ItemID: f.ctn1, SKU: "CTN-1", Quantity: q}
	}
	c2 := func(q int64) shipping.ShipmentLine {
		return shipping.ShipmentLine{ItemID: f.ctn2, SKU: "CTN-2", Quantity: q}
	}
	c3 := func(q int64) shipping.ShipmentLine {
		return shipping.ShipmentLine{ItemID: f.ctn3, SKU: "CTN-3", Quantity: q}
	}

	if err := reserve(c1(3), c2(2)); err != nil {
		t.Fatal(err)
	}
	shipWantStock(t, db, "carton_stock", wh, f.ctn1, 5, 3)
	shipWantStock(t, db, "carton_stock", wh, f.ctn2, 2, 2)
	shipWantStock(t, db, "carton_stock", f.whB, f.ctn1, 3, 0) // other warehouses untouched

	// Short on two cartons (one without a stock row at all), fine on one:
	// every short carton is listed and nothing is reserved.
	err := reserve(c3(1), c1(2), c2(1))
	var ise *shipping.InsufficientStockError
	if !errors.As(err, &ise) {
		t.Fatalf("error %v, want *InsufficientStockError", err)
	}
	want := []shipping.StockShortage{
		{ItemID: f.ctn2, SKU: "CTN-2", Requested: 1, Available: 0},
		{ItemID: f.ctn3, SKU: "CTN-3", Requested: 1, Available: 0},
	}
	if !reflect.DeepEqual(ise.Items, want) {
		t.Fatalf("shortages %+v, want %+v", ise.Items, want)
	}
	shipWantStock(t, db, "carton_stock", wh, f.ctn1, 5, 3)
	shipWantStock(t, db, "carton_stock", wh, f.ctn2, 2, 2)

	// Exactly what is left fits.
	if err := reserve(c1(2)); err != nil {
		t.Fatalf("reserve the last two: %v", err)
	}
	shipWantStock(t, db, "carton_stock", wh, f.ctn1, 5, 5)
	if err := reserve(c1(1)); !errors.As(err, &ise) || ise.Items[0].Available != 0 || ise.Items[0].Requested != 1 {
		t.Fatalf("one more: %v, want 1 requested, 0 available", err)
	}

	if err := release(c2(2), c1(3)); err != nil {
		t.Fatal(err)
	}
	shipWantStock(t, db, "carton_stock", wh, f.ctn1, 5, 2)
	shipWantStock(t, db, "carton_stock", wh, f.ctn2, 2, 0)
	// The database refuses to release more than is reserved.
	if err := release(c2(1)); err == nil {
		t.Fatal("releasing below zero succeeded")
	}
	shipWantStock(t, db, "carton_stock", wh, f.ctn2, 2, 0)
}

func TestInventoryReserveProductsIsABackorder(t *testing.T) {
	f := shipInvFixture(t, "org_ship_inv_bo")
	db := shipDB(t, 4)
	ctx := context.Background()
	lines := []shipping.ShipmentLine{
		{ItemID: f.prod2, Quantity: 45}, // 40 on hand
		{ItemID: f.prod3, Quantity: 4},  // no stock row yet
	}
	err := postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		return r.Inventory.Reserve(ctx, f.org, f.whA, shipping.PickPack, lines)
	})
	if err != nil {
		t.Fatal(err)
	}
	shipWantStock(t, db, "product_stock", f.whA, f.prod2, 40, 45)
	shipWantStock(t, db, "product_stock", f.whA, f.prod3, 0, 4)
	err = postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		return r.Inventory.Release(ctx, f.whA, shipping.PickPack, lines)
	})
	if err != nil {
		t.Fatal(err)
	}
	shipWantStock(t, db, "product_stock", f.whA, f.prod2, 40, 0)
	shipWantStock(t, db, "product_stock", f.whA, f.prod3, 0, 0)
}

func TestInventoryFindByIDs(t *testing.T) {
	f := shipInvFixture(t, "org_ship_inv_ids")
	repo := postgres.NewRepositories(shipDB(t, 2), pgshipping.Repositories).Inventory
	got, err := repo.FindByIDs(context.Background(), f.org, shipping.KindProduct,
		[]string{f.prod1, f.prodX, f.ctn1, "nope", "x'; DROP TABLE products; --", "a\x00b", f.prod1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]shipping.InventoryItem{
		f.prod1: {ID: f.prod1, OrganizationID: f.org, Kind: shipping.KindProduct, SKU: "P-B", Name: "P-B item"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	none, err := repo.FindByIDs(context.Background(), f.org, shipping.KindCarton, nil)
	if err != nil || len(none) != 0 {
		t.Fatalf("no IDs: %v %v", none, err)
	}
}

func TestInventoryListStock(t *testing.T) {
	f := shipInvFixture(t, "org_ship_inv_ls")
	err := postgres.NewUnitOfWork(shipDB(t, 2), pgshipping.Repositories).Do(context.Background(), func(ctx context.Context, r shippingports.Repositories) error {
		return r.Inventory.Reserve(ctx, f.org, f.whB, shipping.SPD, []shipping.ShipmentLine{{ItemID: f.ctn1, Quantity: 2}})
	})
	if err != nil {
		t.Fatal(err)
	}
	db := shipDB(t, 2)
	queries := shipCountQueries(db)
	repo := postgres.NewRepositories(db, pgshipping.Repositories).Inventory
	alpha := domain.WarehouseRef{ID: f.whA, Name: "Alpha"}
	bravo := domain.WarehouseRef{ID: f.whB, Name: "Bravo"}
	type row struct {
		id     string
		levels []shipping.StockLevel
	}
	tests := []struct {
		name     string
		kind     shipping.ItemKind
		filter   shippingports.StockFilter
		page     ports.Page
		want     []row
		wantMore bool
	}{
		{"cartons, only active warehouses of the organization, zeros where none", shipping.KindCarton, shippingports.StockFilter{}, ports.Page{Take: 10}, []row{
			{f.ctn1, []shipping.StockLevel{{Warehouse: alpha, OnHand: 5}, {Warehouse: bravo, OnHand: 3, Reserved: 2}}},
			{f.ctn2, []shipping.StockLevel{{Warehouse: alpha, OnHand: 2}, {Warehouse: bravo}}},
			{f.ctn3, []shipping.StockLevel{{Warehouse: alpha}, {Warehouse: bravo}}},
		}, false},
		{"products by SKU, first page", shipping.KindProduct, shippingports.StockFilter{}, ports.Page{Take: 2}, []row{
			{f.prod2, []shipping.StockLevel{{Warehouse: alpha, OnHand: 40}, {Warehouse: bravo}}},
			{f.prod1, []shipping.StockLevel{{Warehouse: alpha}, {Warehouse: bravo}}},
		}, true},
		{"products, second page", shipping.KindProduct, shippingports.StockFilter{}, ports.Page{Skip: 2, Take: 2}, []row{
			{f.prod3, []shipping.StockLevel{{Warehouse: alpha}, {Warehouse: bravo}}},
		}, false},
		{"SKU filter is exact and per organization", shipping.KindProduct, shippingports.StockFilter{SKU: "P-A"}, ports.Page{Take: 10}, []row{
			{f.prod2, []shipping.StockLevel{{Warehouse: alpha, OnHand: 40}, {Warehouse: bravo}}},
		}, false},
		{"SKU filter is case-sensitive", shipping.KindProduct, shippingports.StockFilter{SKU: "p-a"}, ports.Page{Take: 10}, nil, false},
		{"past the end", shipping.KindCarton, shippingports.StockFilter{}, ports.Page{Skip: 3, Take: 10}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := queries.Load()
			items, more, err := repo.ListStock(context.Background(), f.org, tt.kind, tt.filter, tt.page)
			if err != nil {
				t.Fatal(err)
			}
			if n := queries.Load() - before; n > 2 {
				t.Fatalf("%d queries for one page, want at most 2", n)
			}
			var got []row
			for _, it := range items {
				if it.Item.OrganizationID != f.org || it.Item.Kind != tt.kind {
					t.Fatalf("item %+v", it.Item)
				}
				got = append(got, row{it.Item.ID, it.Levels})
			}
			if !reflect.DeepEqual(got, tt.want) || more != tt.wantMore {
				t.Fatalf("got %+v (more %v)\nwant %+v (more %v)", got, more, tt.want, tt.wantMore)
			}
		})
	}
}
