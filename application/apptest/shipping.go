package apptest

// The fakes of shipping: inventory and shipments; the shipment tests'
// world and the helpers that drive its use cases.

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

func (db *DB) Shipments() []*shipping.Shipment {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Collect(maps.Values(db.State.Shipments))
}

// fakeInventory implements shippingports.InventoryRepository with the arithmetic
// of the contract: SPD cartons are checked, products are not.
type fakeInventory struct{ fakeRepos }

func (r fakeInventory) FindByIDs(_ context.Context, org string, kind shipping.ItemKind, ids []string) (map[string]shipping.InventoryItem, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	out := map[string]shipping.InventoryItem{}
	for _, id := range ids {
		if it, ok := r.State.Items[id]; ok && it.OrganizationID == org && it.Kind == kind {
			out[id] = it
		}
	}
	return out, nil
}

func (r fakeInventory) ListStock(_ context.Context, org string, kind shipping.ItemKind, f shippingports.StockFilter, page ports.Page) ([]shippingports.ItemStock, bool, error) {
	return listOf(r.fakeRepos, func(s *State) map[string]shipping.InventoryItem { return s.Items },
		func(_ string, it shipping.InventoryItem) (shippingports.ItemStock, bool) {
			if it.OrganizationID != org || it.Kind != kind || (f.SKU != "" && it.SKU != f.SKU) {
				return shippingports.ItemStock{}, false
			}
			out := shippingports.ItemStock{Item: it}
			for _, w := range r.State.activeFor(org) {
				l := r.State.Stock[stockKey{w.ID, it.ID}]
				out.Levels = append(out.Levels, shipping.StockLevel{
					Warehouse: domain.WarehouseRef{ID: w.ID, Name: w.Name}, OnHand: l.OnHand, Reserved: l.Reserved,
				})
			}
			return out, true
		}, func(a, b shippingports.ItemStock) int {
			return cmp.Or(strings.Compare(a.Item.SKU, b.Item.SKU), strings.Compare(a.Item.ID, b.Item.ID))
		}, page)
}

func (r fakeInventory) Reserve(_ context.Context, _, warehouse string, kind shipping.ShipmentKind, lines []shipping.ShipmentLine) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	if kind == shipping.SPD {
		var short []shipping.StockShortage
		for _, l := range lines {
			lv := r.State.Stock[stockKey{warehouse, l.ItemID}]
			if avail := lv.OnHand - lv.Reserved; avail < l.Quantity {
				short = append(short, shipping.StockShortage{ItemID: l.ItemID, SKU: l.SKU, Requested: l.Quantity, Available: max(avail, 0)})
			}
		}
		if len(short) > 0 {
			return &shipping.InsufficientStockError{Items: short}
		}
	}
	return r.adjust(warehouse, lines, +1)
}

func (r fakeInventory) Release(_ context.Context, warehouse string, _ shipping.ShipmentKind, lines []shipping.ShipmentLine) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	return r.adjust(warehouse, lines, -1)
}

func (r fakeInventory) adjust(warehouse string, lines []shipping.ShipmentLine, sign int64) error {
	for _, l := range lines {
		k := stockKey{warehouse, l.ItemID}
		lv := r.State.Stock[k]
		lv.Reserved += sign * l.Quantity
		if lv.Reserved < 0 {
			return fmt.Errorf("reserved of %s below zero", l.ItemID)
		}
		r.State.Stock[k] = lv
	}
	return nil
}

// shipCopy returns an independent copy, as a database read would.
func shipCopy(s *shipping.Shipment) *shipping.Shipment {
	return shipping.RehydrateShipment(shipping.RehydrateShipmentParams{
		NewShipmentParams: shipping.NewShipmentParams{
			ID: s.ID(), OrganizationID: s.OrganizationID(), Kind: s.Kind(), Warehouse: s.Warehouse(),
			Address: s.Address(), Notes: s.Notes(), Lines: s.Lines(), Source: s.Source(), Test: s.Test(),
		},
		Status: s.Status(), CreatedAt: s.CreatedAt(), UpdatedAt: s.UpdatedAt(), SubmittedAt: s.SubmittedAt(),
		ShippedAt: s.ShippedAt(), Tracking: s.Tracking(),
	})
}

type fakeShipments struct{ fakeRepos }

func (r fakeShipments) Create(_ context.Context, s *shipping.Shipment) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	if r.db.FailCreate != nil {
		return r.db.FailCreate
	}
	if _, ok := r.State.Shipments[s.ID()]; ok {
		return domain.ErrConflict
	}
	r.State.Shipments[s.ID()] = shipCopy(s)
	return nil
}

func (r fakeShipments) get(org, id string) (*shipping.Shipment, error) {
	s, ok := r.State.Shipments[id]
	if !ok || s.OrganizationID() != org {
		return nil, domain.ErrNotFound
	}
	return shipCopy(s), nil
}

// Update runs change on a copy and stores it; the unit of work's mutex
// stands for the row lock.
func (r fakeShipments) Update(_ context.Context, org, id string, change func(*shipping.Shipment) error) (*shipping.Shipment, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	s, err := r.get(org, id)
	if err != nil {
		return nil, err
	}
	return r.store(s, change)
}

// UpdateAtWarehouse is Update with the shipment found at its warehouse.
func (r fakeShipments) UpdateAtWarehouse(_ context.Context, warehouse, id string, change func(*shipping.Shipment) error) (*shipping.Shipment, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	s, ok := r.State.Shipments[id]
	if !ok || s.Warehouse().ID != warehouse {
		return nil, domain.ErrNotFound
	}
	return r.store(shipCopy(s), change)
}

// store runs change and stores the shipment unless change left it as it
// was.
func (r fakeShipments) store(s *shipping.Shipment, change func(*shipping.Shipment) error) (*shipping.Shipment, error) {
	status, updated := s.Status(), s.UpdatedAt()
	if err := change(s); err != nil {
		return nil, err
	}
	if s.Status() != status || !s.UpdatedAt().Equal(updated) {
		r.State.Shipments[s.ID()] = shipCopy(s)
	}
	return s, nil
}

func (r fakeShipments) ListAtWarehouse(_ context.Context, warehouse string, status shipping.ShipmentStatus, page ports.Page) ([]shippingports.WarehouseShipment, bool, error) {
	return listOf(r.fakeRepos, shipmentsOf, func(_ string, s *shipping.Shipment) (shippingports.WarehouseShipment, bool) {
		if s.Warehouse().ID != warehouse || s.Status() != status || s.SubmittedAt() == nil {
			return shippingports.WarehouseShipment{}, false
		}
		return shippingports.WarehouseShipment{Shipment: shipCopy(s), OrganizationName: r.State.Orgs[s.OrganizationID()].Name}, true
	}, func(a, b shippingports.WarehouseShipment) int {
		return cmp.Or(a.Shipment.SubmittedAt().Compare(*b.Shipment.SubmittedAt()), strings.Compare(a.Shipment.ID(), b.Shipment.ID()))
	}, page)
}

func (r fakeShipments) Get(_ context.Context, org, id string) (*shipping.Shipment, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	return r.get(org, id)
}

func (r fakeShipments) List(_ context.Context, org string, f shippingports.ShipmentFilter, page ports.Page) ([]*shipping.Shipment, bool, error) {
	return listOf(r.fakeRepos, shipmentsOf, func(_ string, s *shipping.Shipment) (*shipping.Shipment, bool) {
		if s.OrganizationID() != org || (f.Status != "" && s.Status() != f.Status) {
			return nil, false
		}
		return shipCopy(s), true
	}, func(a, b *shipping.Shipment) int {
		return cmp.Or(b.CreatedAt().Compare(a.CreatedAt()), strings.Compare(b.ID(), a.ID()))
	}, page)
}

func shipmentsOf(s *State) map[string]*shipping.Shipment { return s.Shipments }

// ShipFixture is the world of the shipment tests: org_ship_a with warehouse
// wh_a (active, name "East"), wh_off (inactive), wh_b of another
// organization; products prod_1, prod_2, cartons ctn_1 (5 at wh_a), ctn_2 (2
// at wh_a); org_ship_b owns prod_b and ctn_b.
func ShipFixture() *DB {
	db := NewDB()
	db.AddWarehouse("wh_a", "East", true, "org_ship_a")
	db.AddWarehouse("wh_off", "Closed", false, "org_ship_a")
	db.AddWarehouse("wh_b", "West", true, "org_ship_b")
	db.AddItem("org_ship_a", shipping.KindProduct, "prod_1", "TEE-BLK-M")
	db.AddItem("org_ship_a", shipping.KindProduct, "prod_2", "TEE-WHT-L")
	db.AddItem("org_ship_a", shipping.KindCarton, "ctn_1", "CTN-TEE-24")
	db.AddItem("org_ship_a", shipping.KindCarton, "ctn_2", "CTN-MUG-12")
	db.AddItem("org_ship_b", shipping.KindProduct, "prod_b", "B-TEE")
	db.AddItem("org_ship_b", shipping.KindCarton, "ctn_b", "B-CTN")
	db.SetStock("wh_a", "ctn_1", 5, 0)
	db.SetStock("wh_a", "ctn_2", 2, 0)
	return db
}

// ShipLinesString prints lines compactly for failure messages.
func ShipLinesString(ls []shipping.ShipmentLine) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s/%s×%d", l.ItemID, l.SKU, l.Quantity)
	}
	return strings.Join(parts, " ")
}

// ShipCancel cancels a shipment through the use case.
func ShipCancel(app *App, org, id string) (*shipping.Shipment, error) {
	return app.Shipping.CancelShipment.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: id})
}

// ShipT0 is the time of the shipment tests.
var ShipT0 = time.Date(2026, 11, 22, 1, 15, 5, 123_000_000, time.UTC)

// ShipApp is the real application on the fakes of db.
func ShipApp(db *DB, env domain.Environment) (*App, *Clock) {
	clock := &Clock{At: ShipT0}
	return NewApp(db, env, clock, noop.NewTracerProvider().Tracer("test")), clock
}

// ShipSandbox is the real application in the sandbox on ShipFixture's
// world, its clock at ShipT0.
func ShipSandbox() (*DB, *App, *Clock) {
	db := ShipFixture()
	app, clock := ShipApp(db, domain.Sandbox)
	return db, app, clock
}

// ShipPickPack is a Pick & Pack shipment of org_ship_a at wh_a.
func ShipPickPack(lines ...shipping.ShipmentLine) shippingapp.CreateShipment {
	return shippingapp.CreateShipment{
		OrganizationID: "org_ship_a", Kind: shipping.PickPack, WarehouseID: "wh_a",
		Address: shipping.Address{Name: "Ada", Country: "US"}, Notes: "leave at door", Lines: lines,
	}
}

// ShipSPD is ShipPickPack as an SPD shipment.
func ShipSPD(lines ...shipping.ShipmentLine) shippingapp.CreateShipment {
	c := ShipPickPack(lines...)
	c.Kind = shipping.SPD
	return c
}

// ShipLine is a line of q of the item id.
func ShipLine(id string, q int64) shipping.ShipmentLine {
	return shipping.ShipmentLine{ItemID: id, Quantity: q}
}

// ShipPending makes a submitted shipment of c and returns its ID.
func ShipPending(t *testing.T, app *App, c shippingapp.CreateShipment) string {
	t.Helper()
	id := ShipDraft(t, app, c)
	if _, err := ShipSubmit(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	return id
}

// ShipDraft creates a draft through the use case and returns its ID.
func ShipDraft(t *testing.T, app *App, c shippingapp.CreateShipment) string {
	t.Helper()
	s, err := app.Shipping.CreateShipment.Handle(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

// ShipSubmit submits a shipment through the use case.
func ShipSubmit(app *App, org, id string) (*shipping.Shipment, error) {
	return app.Shipping.SubmitShipment.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: id})
}
