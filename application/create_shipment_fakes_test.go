package application_test

// In-memory fakes of the ports the shipment and stock use cases need. Their
// names start with `ship` (other use cases' fakes live in this package too).

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// shipStore is the fake database: shipments, warehouses, inventory and
// stock. A unit of work runs under its mutex on a copy that replaces the
// original only when fn succeeds, like a transaction.
type shipStore struct {
	mu         sync.Mutex
	shipments  map[string]*domain.Shipment // by ID
	warehouses map[string]shipWarehouse    // by ID
	items      map[string]domain.InventoryItem
	stock      map[shipStockKey]*shipLevel
	commits    int
}

type shipWarehouse struct {
	domain.Warehouse
	orgs []string
}

type shipStockKey struct{ warehouse, item string }

type shipLevel struct{ onHand, reserved int64 }

func newShipStore() *shipStore {
	return &shipStore{
		shipments: map[string]*domain.Shipment{}, warehouses: map[string]shipWarehouse{},
		items: map[string]domain.InventoryItem{}, stock: map[shipStockKey]*shipLevel{},
	}
}

func (s *shipStore) addWarehouse(id, name string, active bool, orgs ...string) {
	s.warehouses[id] = shipWarehouse{Warehouse: domain.Warehouse{ID: id, Name: name, Active: active}, orgs: orgs}
}

func (s *shipStore) addItem(org string, kind domain.ItemKind, id, sku string) {
	s.items[id] = domain.InventoryItem{ID: id, OrganizationID: org, Kind: kind, SKU: sku, Name: sku}
}

func (s *shipStore) setStock(warehouse, item string, onHand, reserved int64) {
	s.stock[shipStockKey{warehouse, item}] = &shipLevel{onHand: onHand, reserved: reserved}
}

func (s *shipStore) level(warehouse, item string) shipLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.stock[shipStockKey{warehouse, item}]; l != nil {
		return *l
	}
	return shipLevel{}
}

// copyShipment returns an independent copy, as a database read would.
func shipCopy(s *domain.Shipment) *domain.Shipment {
	return domain.RehydrateShipment(domain.RehydrateShipmentParams{
		NewShipmentParams: domain.NewShipmentParams{
			ID: s.ID(), OrganizationID: s.OrganizationID(), Kind: s.Kind(), Warehouse: s.Warehouse(),
			Address: s.Address(), Notes: s.Notes(), Lines: s.Lines(), Source: s.Source(), Test: s.Test(),
		},
		Status: s.Status(), CreatedAt: s.CreatedAt(), UpdatedAt: s.UpdatedAt(), SubmittedAt: s.SubmittedAt(),
	})
}

func (s *shipStore) clone() *shipStore {
	c := newShipStore()
	for k, v := range s.shipments {
		c.shipments[k] = shipCopy(v)
	}
	maps.Copy(c.warehouses, s.warehouses)
	maps.Copy(c.items, s.items)
	for k, v := range s.stock {
		l := *v
		c.stock[k] = &l
	}
	return c
}

func (s *shipStore) repos() ports.Repositories {
	return ports.Repositories{
		Shipments:  shipShipments{s},
		Inventory:  shipInventory{s},
		Warehouses: shipWarehouses{s},
	}
}

// shipUoW implements ports.UnitOfWork on a shipStore.
type shipUoW struct{ db *shipStore }

func (u shipUoW) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	u.db.mu.Lock()
	defer u.db.mu.Unlock()
	tx := u.db.clone()
	if err := fn(ctx, tx.repos()); err != nil {
		return err
	}
	u.db.shipments, u.db.stock = tx.shipments, tx.stock
	u.db.commits++
	return nil
}

// shipShipments implements ports.ShipmentRepository.
type shipShipments struct{ db *shipStore }

func (r shipShipments) Create(ctx context.Context, s *domain.Shipment) error {
	if _, ok := r.db.shipments[s.ID()]; ok {
		return domain.ErrConflict
	}
	r.db.shipments[s.ID()] = shipCopy(s)
	return nil
}

// Update runs change on a copy and stores it; the unit of work's mutex
// stands for the row lock.
func (r shipShipments) Update(ctx context.Context, org, id string, change func(*domain.Shipment) error) (*domain.Shipment, error) {
	s, err := r.Get(ctx, org, id)
	if err != nil {
		return nil, err
	}
	if err := change(s); err != nil {
		return nil, err
	}
	r.db.shipments[s.ID()] = shipCopy(s)
	return s, nil
}

func (r shipShipments) Get(ctx context.Context, org, id string) (*domain.Shipment, error) {
	s, ok := r.db.shipments[id]
	if !ok || s.OrganizationID() != org {
		return nil, domain.ErrNotFound
	}
	return shipCopy(s), nil
}

func (r shipShipments) List(ctx context.Context, org string, f ports.ShipmentFilter, page ports.Page) ([]*domain.Shipment, bool, error) {
	var all []*domain.Shipment
	for _, s := range r.db.shipments {
		if s.OrganizationID() == org && (f.Status == "" || s.Status() == f.Status) {
			all = append(all, shipCopy(s))
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].CreatedAt().Equal(all[j].CreatedAt()) {
			return all[i].CreatedAt().After(all[j].CreatedAt())
		}
		return all[i].ID() > all[j].ID()
	})
	if page.Skip >= len(all) {
		return []*domain.Shipment{}, false, nil
	}
	all = all[page.Skip:]
	more := len(all) > page.Take
	return all[:min(page.Take, len(all))], more, nil
}

// shipWarehouses implements ports.WarehouseRepository.
type shipWarehouses struct{ db *shipStore }

func (r shipWarehouses) ListActive(ctx context.Context, org string, page ports.Page) ([]domain.Warehouse, bool, error) {
	return nil, false, fmt.Errorf("not used by the shipment use cases")
}

func (r shipWarehouses) ActiveForOrganization(ctx context.Context, org, id string) (domain.Warehouse, error) {
	w, ok := r.db.warehouses[id]
	if !ok || !w.Active || !slices.Contains(w.orgs, org) {
		return domain.Warehouse{}, domain.ErrNotFound
	}
	return w.Warehouse, nil
}

// shipInventory implements ports.InventoryRepository with the arithmetic of
// the contract: SPD cartons are checked, products are not.
type shipInventory struct{ db *shipStore }

func (r shipInventory) FindByIDs(ctx context.Context, org string, kind domain.ItemKind, ids []string) (map[string]domain.InventoryItem, error) {
	out := map[string]domain.InventoryItem{}
	for _, id := range ids {
		if it, ok := r.db.items[id]; ok && it.OrganizationID == org && it.Kind == kind {
			out[id] = it
		}
	}
	return out, nil
}

func (r shipInventory) ListStock(ctx context.Context, org string, kind domain.ItemKind, f ports.StockFilter, page ports.Page) ([]ports.ItemStock, bool, error) {
	var items []domain.InventoryItem
	for _, it := range r.db.items {
		if it.OrganizationID == org && it.Kind == kind && (f.SKU == "" || it.SKU == f.SKU) {
			items = append(items, it)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].SKU < items[j].SKU })
	if page.Skip >= len(items) {
		return []ports.ItemStock{}, false, nil
	}
	items = items[page.Skip:]
	more := len(items) > page.Take
	items = items[:min(page.Take, len(items))]
	out := make([]ports.ItemStock, len(items))
	for i, it := range items {
		out[i] = ports.ItemStock{Item: it}
		for _, w := range r.db.warehouses {
			if w.Active && slices.Contains(w.orgs, org) {
				l := shipLevel{}
				if p := r.db.stock[shipStockKey{w.ID, it.ID}]; p != nil {
					l = *p
				}
				out[i].Levels = append(out[i].Levels, domain.StockLevel{
					Warehouse: domain.WarehouseRef{ID: w.ID, Name: w.Name}, OnHand: l.onHand, Reserved: l.reserved,
				})
			}
		}
	}
	return out, more, nil
}

func (r shipInventory) Reserve(ctx context.Context, warehouse string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error {
	if kind == domain.SPD {
		var short []domain.StockShortage
		for _, l := range lines {
			lv := shipLevel{}
			if p := r.db.stock[shipStockKey{warehouse, l.ItemID}]; p != nil {
				lv = *p
			}
			if avail := lv.onHand - lv.reserved; avail < l.Quantity {
				short = append(short, domain.StockShortage{ItemID: l.ItemID, SKU: l.SKU, Requested: l.Quantity, Available: max(avail, 0)})
			}
		}
		if len(short) > 0 {
			return &domain.InsufficientStockError{Items: short}
		}
	}
	return r.adjust(warehouse, lines, +1)
}

func (r shipInventory) Release(ctx context.Context, warehouse string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error {
	return r.adjust(warehouse, lines, -1)
}

func (r shipInventory) adjust(warehouse string, lines []domain.ShipmentLine, sign int64) error {
	for _, l := range lines {
		k := shipStockKey{warehouse, l.ItemID}
		if r.db.stock[k] == nil {
			r.db.stock[k] = &shipLevel{}
		}
		r.db.stock[k].reserved += sign * l.Quantity
		if r.db.stock[k].reserved < 0 {
			return fmt.Errorf("reserved of %s below zero", l.ItemID)
		}
	}
	return nil
}

// shipClock is a clock that moves only when told.
type shipClock struct{ now time.Time }

func (c *shipClock) Now() time.Time { return c.now }

// shipIDs counts: shp_1, shp_2, ...
type shipIDs struct{ n int }

func (g *shipIDs) NewID(prefix string) string {
	g.n++
	return fmt.Sprintf("%s_%d", prefix, g.n)
}

// shipFixture is the world of the shipment tests: org_ship_a with warehouse
// wh_a (active, name "East"), wh_off (inactive), wh_b of another
// organization; products prod_1, prod_2, cartons ctn_1 (5 at wh_a), ctn_2 (2
// at wh_a); org_ship_b owns prod_b and ctn_b.
func shipFixture() *shipStore {
	db := newShipStore()
	db.addWarehouse("wh_a", "East", true, "org_ship_a")
	db.addWarehouse("wh_off", "Closed", false, "org_ship_a")
	db.addWarehouse("wh_b", "West", true, "org_ship_b")
	db.addItem("org_ship_a", domain.KindProduct, "prod_1", "TEE-BLK-M")
	db.addItem("org_ship_a", domain.KindProduct, "prod_2", "TEE-WHT-L")
	db.addItem("org_ship_a", domain.KindCarton, "ctn_1", "CTN-TEE-24")
	db.addItem("org_ship_a", domain.KindCarton, "ctn_2", "CTN-MUG-12")
	db.addItem("org_ship_b", domain.KindProduct, "prod_b", "B-TEE")
	db.addItem("org_ship_b", domain.KindCarton, "ctn_b", "B-CTN")
	db.setStock("wh_a", "ctn_1", 5, 0)
	db.setStock("wh_a", "ctn_2", 2, 0)
	return db
}

// shipLinesString prints lines compactly for failure messages.
func shipLinesString(ls []domain.ShipmentLine) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s/%s×%d", l.ItemID, l.SKU, l.Quantity)
	}
	return strings.Join(parts, " ")
}
