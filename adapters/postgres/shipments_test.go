package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	"github.com/acme3pl/fulfillment/adapters/system"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// Helpers of the shipment and inventory tests; their names start with
// `ship` (other tests of this package have helpers of their own).

// shipNamer is pgtest.Namer.
func shipNamer() func(string) string { return pgtest.Namer() }

func shipWarehouse(id, name string, active bool) domain.Warehouse {
	return pgtest.Warehouse(id, name, active)
}

func shipItem(org string, kind shipping.ItemKind, id, sku string) shipping.InventoryItem {
	return pgtest.Item(org, kind, id, sku)
}

// shipDB opens a pool of at most conns connections to the package's
// database, closed when t ends.
func shipDB(t *testing.T, conns int) *bun.DB {
	t.Helper()
	return pgtest.Pool(t, testDSN, conns)
}

// shipWantStock checks one stock row (pgtest.WantStock).
func shipWantStock(t *testing.T, db *bun.DB, table, warehouse, item string, onHand, reserved int64) {
	t.Helper()
	pgtest.WantStock(t, db, table, warehouse, item, onHand, reserved)
}

// shipQueryCounter counts the queries a pool sends.
type shipQueryCounter struct{ n *atomic.Int64 }

func (c shipQueryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	c.n.Add(1)
	return ctx
}

func (c shipQueryCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

func shipCountQueries(db *bun.DB) *atomic.Int64 {
	n := new(atomic.Int64)
	db.AddQueryHook(shipQueryCounter{n})
	return n
}

// shipUseCases are the real shipment use cases on the real database.
type shipUseCases struct {
	create *shippingapp.CreateShipmentHandler
	submit *shippingapp.SubmitShipmentHandler
	cancel *shippingapp.CancelShipmentHandler
}

func newShipUseCases(db *bun.DB) shipUseCases {
	uow := postgres.NewUnitOfWork(db, pgshipping.Repositories)
	return shipUseCases{
		create: shippingapp.NewCreateShipmentHandler(uow, system.Clock{}, system.IDs{}, domain.Sandbox),
		submit: shippingapp.NewSubmitShipmentHandler(uow, system.Clock{}),
		cancel: shippingapp.NewCancelShipmentHandler(uow, system.Clock{}, system.IDs{}),
	}
}

func (u shipUseCases) draft(t *testing.T, org, warehouse string, lines ...shipping.ShipmentLine) string {
	t.Helper()
	s, err := u.create.Handle(context.Background(), shippingapp.CreateShipment{
		OrganizationID: org, Kind: shipping.SPD, WarehouseID: warehouse, Lines: lines,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

// shipShipFixture: org_ship_repo (and org_ship_repo_x) with warehouse
// wh_ship_repo ("Repo DC"), products and cartons.
func shipShipFixture(t *testing.T, n func(string) string) {
	t.Helper()
	load(t, fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: n("org_ship_repo"), Name: "Repo"}, {ID: n("org_ship_repo_x"), Name: "Other"}},
		Warehouses: []fixtureports.Warehouse{
			{Warehouse: shipWarehouse(n("wh_ship_repo"), "Repo DC", true), Organizations: []string{n("org_ship_repo"), n("org_ship_repo_x")}},
		},
		Inventory: []shipping.InventoryItem{
			shipItem(n("org_ship_repo"), shipping.KindProduct, n("prod_ship_repo_1"), "P-1"),
			shipItem(n("org_ship_repo"), shipping.KindProduct, n("prod_ship_repo_2"), "P-2"),
			shipItem(n("org_ship_repo"), shipping.KindCarton, n("ctn_ship_repo_1"), "C-1"),
		},
		Stock: []shipping.Stock{{WarehouseID: n("wh_ship_repo"), Kind: shipping.KindCarton, ItemID: n("ctn_ship_repo_1"), OnHand: 100}},
	})
}

func shipNew(t *testing.T, p shipping.NewShipmentParams) *shipping.Shipment {
	t.Helper()
	s, err := shipping.NewShipment(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// shipRepoFixture loads the shipment fixture under fresh names
// (shipShipFixture), and opens a pool of two on it with its repositories.
func shipRepoFixture(t *testing.T) (func(string) string, *bun.DB, shippingports.Repositories) {
	t.Helper()
	n := shipNamer()
	shipShipFixture(t, n)
	db := shipDB(t, 2)
	return n, db, postgres.NewRepositories(db, pgshipping.Repositories)
}

func TestShipmentRepositoryRoundTrip(t *testing.T) {
	n, db, repos := shipRepoFixture(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 1, 15, 5, 123_456_000, time.UTC)
	wh := domain.WarehouseRef{ID: n("wh_ship_repo"), Name: "Repo DC"}
	pp := shipNew(t, shipping.NewShipmentParams{
		ID: n("shp_ship_repo_pp"), OrganizationID: n("org_ship_repo"), Kind: shipping.PickPack, Warehouse: wh,
		Address: shipping.Address{Name: "Zoë", Company: "ACME", Address1: "1 Main", Address2: "Apt 2", City: "Köln",
			State: "NW", Zip: "50667", Country: "DE", Phone: "+49"},
		Notes:  "fragile ✓",
		Lines:  []shipping.ShipmentLine{{ItemID: n("prod_ship_repo_2"), SKU: "P-2", Quantity: 3}, {ItemID: n("prod_ship_repo_1"), SKU: "P-1", Quantity: 1}},
		Source: &shipping.ShipmentSource{Type: "storefront", OrderID: 9_007_199_254_740_993, OrderNumber: 1001},
		Test:   true, Now: now,
	})
	spd := shipNew(t, shipping.NewShipmentParams{
		ID: n("shp_ship_repo_spd"), OrganizationID: n("org_ship_repo"), Kind: shipping.SPD, Warehouse: wh,
		Lines: []shipping.ShipmentLine{{ItemID: n("ctn_ship_repo_1"), SKU: "C-1", Quantity: 7}}, Now: now,
	})
	for _, s := range []*shipping.Shipment{pp, spd} {
		if err := repos.Shipments.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := repos.Shipments.Get(ctx, n("org_ship_repo"), s.ID())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("stored %+v\nread   %+v", s, got)
		}
	}
	if err := repos.Shipments.Create(ctx, spd); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("second create: %v, want ErrConflict", err)
	}
	later := now.Add(time.Minute)
	var updated *shipping.Shipment
	err := postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		var err error
		updated, err = r.Shipments.Update(ctx, n("org_ship_repo"), spd.ID(), func(s *shipping.Shipment) error { return s.Submit(later) })
		return err
	})
	if err != nil || updated.Status() != shipping.ShipmentPending {
		t.Fatalf("update: %+v, %v", updated, err)
	}
	got, err := repos.Shipments.Get(ctx, n("org_ship_repo"), spd.ID())
	if err != nil || !reflect.DeepEqual(got, updated) || got.SubmittedAt() == nil || !got.SubmittedAt().Equal(later) {
		t.Fatalf("after update: %+v, %v; want %+v", got, err, updated)
	}
	// A change that fails stores nothing, and its error comes back as it is.
	err = postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		_, err := r.Shipments.Update(ctx, n("org_ship_repo"), spd.ID(), func(s *shipping.Shipment) error { return s.Submit(later.Add(time.Hour)) })
		return err
	})
	if !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("second submit: %v, want ErrInvalidState", err)
	}
	if got, err := repos.Shipments.Get(ctx, n("org_ship_repo"), spd.ID()); err != nil || !got.UpdatedAt().Equal(later) {
		t.Fatalf("after a failed change: %+v, %v", got, err)
	}
	for _, tt := range []struct{ org, id string }{
		{n("org_ship_repo_x"), spd.ID()}, {n("org_ship_repo"), "shp_nope"}, {n("org_ship_repo"), "shp\x00"}, {n("org_ship_repo"), "' OR 1=1 --"},
	} {
		if _, err := repos.Shipments.Get(ctx, tt.org, tt.id); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Get(%q, %q): %v, want ErrNotFound", tt.org, tt.id, err)
		}
		err := postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			_, err := r.Shipments.Update(ctx, tt.org, tt.id, func(*shipping.Shipment) error { return errors.New("changed a shipment that is not there") })
			return err
		})
		if !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Update(%q, %q): %v, want ErrNotFound", tt.org, tt.id, err)
		}
	}
}

func TestShipmentRepositoryList(t *testing.T) {
	n, db, repos := shipRepoFixture(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := func(i int) string { return n(fmt.Sprintf("shp_l%d", i)) }
	wh := domain.WarehouseRef{ID: n("wh_ship_repo")}
	// An organization of its own keeps this list free of other tests' rows.
	load(t, fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: n("org_ship_list"), Name: "List"}},
		Warehouses:    []fixtureports.Warehouse{{Warehouse: shipWarehouse(n("wh_ship_repo"), "Repo DC", true), Organizations: []string{n("org_ship_list")}}},
		Inventory: []shipping.InventoryItem{
			shipItem(n("org_ship_list"), shipping.KindProduct, n("prod_ship_list"), "LP"),
			shipItem(n("org_ship_list"), shipping.KindCarton, n("ctn_ship_list"), "LC"),
		},
	})
	// Five shipments: l2 and l3 share a creation time (the ID breaks the
	// tie); l1 is pending; l4 is Pick & Pack.
	for i, spec := range []struct {
		id   string
		at   time.Time
		kind shipping.ShipmentKind
	}{
		{l(0), t0, shipping.SPD}, {l(1), t0.Add(time.Hour), shipping.SPD}, {l(2), t0.Add(2 * time.Hour), shipping.SPD},
		{l(3), t0.Add(2 * time.Hour), shipping.SPD}, {l(4), t0.Add(3 * time.Hour), shipping.PickPack},
	} {
		item := n("ctn_ship_list")
		if spec.kind == shipping.PickPack {
			item = n("prod_ship_list")
		}
		s := shipNew(t, shipping.NewShipmentParams{ID: spec.id, OrganizationID: n("org_ship_list"), Kind: spec.kind, Warehouse: wh,
			Lines: []shipping.ShipmentLine{{ItemID: item, Quantity: int64(i + 1)}}, Now: spec.at})
		if spec.id == l(1) {
			if err := s.Submit(spec.at); err != nil {
				t.Fatal(err)
			}
		}
		if err := repos.Shipments.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	queries := shipCountQueries(db)
	tests := []struct {
		name     string
		filter   shippingports.ShipmentFilter
		page     ports.Page
		want     []string
		wantMore bool
	}{
		{"newest first, ties by ID descending", shippingports.ShipmentFilter{}, ports.Page{Take: 10}, []string{l(4), l(3), l(2), l(1), l(0)}, false},
		{"first page", shippingports.ShipmentFilter{}, ports.Page{Take: 2}, []string{l(4), l(3)}, true},
		{"middle page", shippingports.ShipmentFilter{}, ports.Page{Skip: 2, Take: 2}, []string{l(2), l(1)}, true},
		{"last page", shippingports.ShipmentFilter{}, ports.Page{Skip: 4, Take: 2}, []string{l(0)}, false},
		{"drafts", shippingports.ShipmentFilter{Status: shipping.ShipmentDraft}, ports.Page{Take: 10}, []string{l(4), l(3), l(2), l(0)}, false},
		{"pending", shippingports.ShipmentFilter{Status: shipping.ShipmentPending}, ports.Page{Take: 10}, []string{l(1)}, false},
		{"cancelled", shippingports.ShipmentFilter{Status: shipping.ShipmentCancelled}, ports.Page{Take: 10}, []string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := queries.Load()
			ss, more, err := repos.Shipments.List(ctx, n("org_ship_list"), tt.filter, tt.page)
			if err != nil {
				t.Fatal(err)
			}
			// The page, then the lines of each kind present: never one query per shipment.
			if n := queries.Load() - before; n > 3 {
				t.Fatalf("%d queries for one page, want at most 3", n)
			}
			ids := []string{}
			for _, s := range ss {
				ids = append(ids, s.ID())
				if len(s.Lines()) != 1 || s.Lines()[0].SKU == "" || s.Warehouse().Name != "Repo DC" {
					t.Fatalf("%s: lines %+v warehouse %+v", s.ID(), s.Lines(), s.Warehouse())
				}
			}
			if !reflect.DeepEqual(ids, tt.want) || more != tt.wantMore {
				t.Fatalf("got %v (more %v), want %v (more %v)", ids, more, tt.want, tt.wantMore)
			}
		})
	}
	other, _, err := repos.Shipments.List(ctx, n("org_ship_repo_x"), shippingports.ShipmentFilter{}, ports.Page{Take: 10})
	if err != nil || len(other) != 0 {
		t.Fatalf("another organization sees %d shipments (%v)", len(other), err)
	}
}

func TestShipmentUpdateHoldsTheRowUntilCommit(t *testing.T) {
	n := shipNamer()
	shipShipFixture(t, n)
	db := shipDB(t, 4)
	u := newShipUseCases(db)
	id := u.draft(t, n("org_ship_repo"), n("wh_ship_repo"), shipping.ShipmentLine{ItemID: n("ctn_ship_repo_1"), Quantity: 1})
	ctx := context.Background()
	unchanged := func(*shipping.Shipment) error { return nil }
	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			_, err := r.Shipments.Update(ctx, n("org_ship_repo"), id, func(*shipping.Shipment) error {
				close(locked)
				<-release
				return nil
			})
			return err
		})
	}()
	select {
	case <-locked:
	case err := <-first:
		t.Fatalf("first transaction: %v", err)
	}
	second := make(chan error, 1)
	var secondDone atomic.Bool
	go func() {
		second <- postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
			_, err := r.Shipments.Update(ctx, n("org_ship_repo"), id, unchanged)
			secondDone.Store(true)
			return err
		})
	}()
	pgtest.WaitForLockWaiters(t, db, 1)
	if secondDone.Load() {
		t.Fatal("a second Update did not wait for the first transaction")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	// A plain Get does not wait.
	err := postgres.NewUnitOfWork(db, pgshipping.Repositories).Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		_, err := r.Shipments.Update(ctx, n("org_ship_repo"), id, func(*shipping.Shipment) error {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := postgres.NewRepositories(db, pgshipping.Repositories).Shipments.Get(rctx, n("org_ship_repo"), id)
			return err
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
