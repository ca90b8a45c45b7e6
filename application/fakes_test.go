package application_test

// The in-memory fakes of the ports, one set for every use case's tests:
// fakeDB is the database, fakeUoW its unit of work, and the repositories
// read and write its state — inside a unit of work on the transaction's
// copy, outside one (db.pool()) on the state itself, each call under the
// database's mutex as a statement of its own would be.

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// fakeDB is the fake database.
type fakeDB struct {
	mu      sync.Mutex
	state   fakeState
	commits int // units of work committed
	// failCreate, when set, is returned where a shipment is stored (the
	// shipment repository's Create, the receipts' Accept).
	failCreate error
	// down makes every unit of work and every call outside one fail with
	// domain.ErrUnavailable.
	down bool
}

// fakeState is what a transaction copies.
type fakeState struct {
	orgs       map[string]domain.Organization
	warehouses []fakeWarehouse                   // in the order they were added
	items      map[string]shipping.InventoryItem // products and cartons, by ID
	stock      map[stockKey]stockLevel
	shipments  map[string]*shipping.Shipment // by ID; stored copies
	receipts   map[intakeKey]intakeStored
	keys       []domain.APIKey
	events     []ports.Event      // recorded by committed units of work, in order
	wh         warehouseSideState // warehouse_fakes_test.go
}

type fakeWarehouse struct {
	domain.Warehouse
	orgs []string
}

type stockKey struct{ warehouse, item string }

type stockLevel struct{ onHand, reserved int64 }

type intakeKey struct {
	org   string
	order int64
}

// intakeStored is a receipt as stored: its parameters and its kept body.
type intakeStored struct {
	intake.OrderReceiptParams
	payload []byte
}

func newFakeDB() *fakeDB {
	return &fakeDB{state: fakeState{
		orgs: map[string]domain.Organization{}, items: map[string]shipping.InventoryItem{}, stock: map[stockKey]stockLevel{},
		shipments: map[string]*shipping.Shipment{}, receipts: map[intakeKey]intakeStored{},
	}}
}

func (s fakeState) clone() fakeState {
	s.orgs = maps.Clone(s.orgs)
	s.warehouses = slices.Clone(s.warehouses)
	s.items = maps.Clone(s.items)
	s.stock = maps.Clone(s.stock)
	s.shipments = maps.Clone(s.shipments) // values are replaced, never changed
	s.receipts = maps.Clone(s.receipts)
	s.keys = slices.Clone(s.keys)
	s.events = slices.Clone(s.events)
	s.wh = s.wh.clone()
	return s
}

func (db *fakeDB) addWarehouse(id, name string, active bool, orgs ...string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.state.warehouses = append(db.state.warehouses, fakeWarehouse{Warehouse: domain.Warehouse{ID: id, Name: name, Active: active}, orgs: orgs})
}

func (db *fakeDB) addItem(org string, kind shipping.ItemKind, id, sku string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.state.items[id] = shipping.InventoryItem{ID: id, OrganizationID: org, Kind: kind, SKU: sku, Name: sku}
}

func (db *fakeDB) addProduct(org, id, sku string) { db.addItem(org, shipping.KindProduct, id, sku) }

func (db *fakeDB) setStock(warehouse, item string, onHand, reserved int64) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.state.stock[stockKey{warehouse, item}] = stockLevel{onHand: onHand, reserved: reserved}
}

func (db *fakeDB) level(warehouse, item string) stockLevel {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.state.stock[stockKey{warehouse, item}]
}

func (db *fakeDB) shipments() []*shipping.Shipment {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Collect(maps.Values(db.state.shipments))
}

// receipt returns the stored receipt of an order and whether there is one.
func (db *fakeDB) receipt(org string, order int64) (*intake.OrderReceipt, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	p, ok := db.state.receipts[intakeKey{org, order}]
	return intake.RehydrateOrderReceipt(p.OrderReceiptParams), ok
}

// payload returns the body kept with an order's receipt (nil: none).
func (db *fakeDB) payload(org string, order int64) []byte {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.state.receipts[intakeKey{org, order}].payload
}

func (db *fakeDB) check() error {
	if db.down {
		return fmt.Errorf("dial: %w", domain.ErrUnavailable)
	}
	return nil
}

// repos are the repositories on state; pooled ones take the mutex per call.
func (db *fakeDB) repos(state *fakeState, pooled bool) ports.Repositories {
	f := fakeRepos{db: db, state: state, pooled: pooled}
	return ports.Repositories{
		Organizations: fakeOrgs{f}, Warehouses: fakeWarehouses{f}, Inventory: fakeInventory{f},
		Shipments: fakeShipments{f}, Receipts: fakeReceipts{f}, APIKeys: fakeKeys{f},
		WarehouseReceipts: fakeWarehouseReceipts{f}, WarehouseServices: fakeWarehouseServices{f}, Stock: fakeStockLedger{f},
		Events: fakeEvents{f},
	}
}

// pool is the repositories outside a unit of work.
func (db *fakeDB) pool() ports.Repositories { return db.repos(&db.state, true) }

// fakeUoW implements ports.UnitOfWork on a fakeDB: fn runs under the
// mutex (the row locks of a real database, all at once) on a copy that
// replaces the state only when fn succeeds.
type fakeUoW struct{ db *fakeDB }

func (u fakeUoW) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	u.db.mu.Lock()
	defer u.db.mu.Unlock()
	if err := u.db.check(); err != nil {
		return err
	}
	tx := u.db.state.clone()
	if err := fn(ctx, u.db.repos(&tx, false)); err != nil {
		return err
	}
	u.db.state = tx
	u.db.commits++
	return nil
}

type fakeRepos struct {
	db     *fakeDB
	state  *fakeState
	pooled bool
}

// begin takes the mutex for a call outside a unit of work, and checks
// that the database is there; end releases it.
func (r fakeRepos) begin() (end func(), err error) {
	if !r.pooled {
		return func() {}, nil
	}
	r.db.mu.Lock()
	if err := r.db.check(); err != nil {
		r.db.mu.Unlock()
		return nil, err
	}
	return r.db.mu.Unlock, nil
}

type fakeOrgs struct{ fakeRepos }

func (r fakeOrgs) Get(_ context.Context, id string) (domain.Organization, error) {
	end, err := r.begin()
	if err != nil {
		return domain.Organization{}, err
	}
	defer end()
	o, ok := r.state.orgs[id]
	if !ok {
		return domain.Organization{}, domain.ErrNotFound
	}
	return o, nil
}

type fakeWarehouses struct{ fakeRepos }

// activeFor are the organization's active warehouses by name then ID.
func (s *fakeState) activeFor(org string) []domain.Warehouse {
	var out []domain.Warehouse
	for _, w := range s.warehouses {
		if w.Active && slices.Contains(w.orgs, org) {
			out = append(out, w.Warehouse)
		}
	}
	slices.SortFunc(out, func(a, b domain.Warehouse) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return out
}

func (r fakeWarehouses) ListActive(_ context.Context, org string, page ports.Page) ([]domain.Warehouse, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	ws := r.state.activeFor(org)
	ws = ws[min(page.Skip, len(ws)):]
	return ws[:min(page.Take, len(ws))], len(ws) > page.Take, nil
}

func (r fakeWarehouses) IsActive(_ context.Context, id string) (bool, error) {
	end, err := r.begin()
	if err != nil {
		return false, err
	}
	defer end()
	for _, w := range r.state.warehouses {
		if w.ID == id {
			return w.Active, nil
		}
	}
	return false, nil
}

func (r fakeWarehouses) ActiveForOrganization(_ context.Context, org, id string) (domain.Warehouse, error) {
	end, err := r.begin()
	if err != nil {
		return domain.Warehouse{}, err
	}
	defer end()
	for _, w := range r.state.activeFor(org) {
		if w.ID == id {
			return w, nil
		}
	}
	return domain.Warehouse{}, domain.ErrNotFound
}

// fakeInventory implements ports.InventoryRepository with the arithmetic
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
		if it, ok := r.state.items[id]; ok && it.OrganizationID == org && it.Kind == kind {
			out[id] = it
		}
	}
	return out, nil
}

func (r fakeInventory) ListStock(_ context.Context, org string, kind shipping.ItemKind, f ports.StockFilter, page ports.Page) ([]ports.ItemStock, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	var items []shipping.InventoryItem
	for _, it := range r.state.items {
		if it.OrganizationID == org && it.Kind == kind && (f.SKU == "" || it.SKU == f.SKU) {
			items = append(items, it)
		}
	}
	slices.SortFunc(items, func(a, b shipping.InventoryItem) int {
		return cmp.Or(strings.Compare(a.SKU, b.SKU), strings.Compare(a.ID, b.ID))
	})
	items = items[min(page.Skip, len(items)):]
	more := len(items) > page.Take
	items = items[:min(page.Take, len(items))]
	out := make([]ports.ItemStock, len(items))
	for i, it := range items {
		out[i] = ports.ItemStock{Item: it}
		for _, w := range r.state.activeFor(org) {
			l := r.state.stock[stockKey{w.ID, it.ID}]
			out[i].Levels = append(out[i].Levels, shipping.StockLevel{
				Warehouse: domain.WarehouseRef{ID: w.ID, Name: w.Name}, OnHand: l.onHand, Reserved: l.reserved,
			})
		}
	}
	return out, more, nil
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
			lv := r.state.stock[stockKey{warehouse, l.ItemID}]
			if avail := lv.onHand - lv.reserved; avail < l.Quantity {
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
		lv := r.state.stock[k]
		lv.reserved += sign * l.Quantity
		if lv.reserved < 0 {
			return fmt.Errorf("reserved of %s below zero", l.ItemID)
		}
		r.state.stock[k] = lv
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
	if r.db.failCreate != nil {
		return r.db.failCreate
	}
	if _, ok := r.state.shipments[s.ID()]; ok {
		return domain.ErrConflict
	}
	r.state.shipments[s.ID()] = shipCopy(s)
	return nil
}

func (r fakeShipments) get(org, id string) (*shipping.Shipment, error) {
	s, ok := r.state.shipments[id]
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
	s, ok := r.state.shipments[id]
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
		r.state.shipments[s.ID()] = shipCopy(s)
	}
	return s, nil
}

func (r fakeShipments) ListAtWarehouse(_ context.Context, warehouse string, status shipping.ShipmentStatus, page ports.Page) ([]ports.WarehouseShipment, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	var all []ports.WarehouseShipment
	for _, s := range r.state.shipments {
		if s.Warehouse().ID == warehouse && s.Status() == status && s.SubmittedAt() != nil {
			all = append(all, ports.WarehouseShipment{Shipment: shipCopy(s), OrganizationName: r.state.orgs[s.OrganizationID()].Name})
		}
	}
	slices.SortFunc(all, func(a, b ports.WarehouseShipment) int {
		return cmp.Or(a.Shipment.SubmittedAt().Compare(*b.Shipment.SubmittedAt()), strings.Compare(a.Shipment.ID(), b.Shipment.ID()))
	})
	all = all[min(page.Skip, len(all)):]
	return all[:min(page.Take, len(all))], len(all) > page.Take, nil
}

func (r fakeShipments) Get(_ context.Context, org, id string) (*shipping.Shipment, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	return r.get(org, id)
}

func (r fakeShipments) List(_ context.Context, org string, f ports.ShipmentFilter, page ports.Page) ([]*shipping.Shipment, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	var all []*shipping.Shipment
	for _, s := range r.state.shipments {
		if s.OrganizationID() == org && (f.Status == "" || s.Status() == f.Status) {
			all = append(all, shipCopy(s))
		}
	}
	slices.SortFunc(all, func(a, b *shipping.Shipment) int {
		return cmp.Or(b.CreatedAt().Compare(a.CreatedAt()), strings.Compare(b.ID(), a.ID()))
	})
	all = all[min(page.Skip, len(all)):]
	return all[:min(page.Take, len(all))], len(all) > page.Take, nil
}

// fakeReceipts keeps receipts as the parameters they are stored with;
// Claim and RecordFailure apply the domain's rules, as the postgres
// adapter's statements do.
type fakeReceipts struct{ fakeRepos }

// stored is the receipt of k, or nil.
func (r fakeReceipts) stored(k intakeKey) *intake.OrderReceipt {
	if p, ok := r.state.receipts[k]; ok {
		return intake.RehydrateOrderReceipt(p.OrderReceiptParams)
	}
	return nil
}

// store keeps rec; keep tells whether the body rec's last transition keeps
// replaces the stored one (a claim keeps the stored body as it is).
func (r fakeReceipts) store(rec *intake.OrderReceipt, keep bool) {
	k := intakeKey{rec.OrganizationID(), rec.OrderID()}
	payload := r.state.receipts[k].payload
	if keep {
		payload = slices.Clone(rec.Payload())
	}
	var size *int
	if payload != nil {
		n := len(payload)
		size = &n
	}
	r.state.receipts[k] = intakeStored{OrderReceiptParams: intake.OrderReceiptParams{
		OrganizationID: rec.OrganizationID(), OrderID: rec.OrderID(), OrderNumber: rec.OrderNumber(), Status: rec.Status(),
		Skipped: rec.Skipped(), Attempts: rec.Attempts(), LastError: rec.LastError(), ShipmentID: rec.ShipmentID(),
		TraceID: rec.TraceID(), FirstReceived: rec.FirstReceived(), LastReceived: rec.LastReceived(), PayloadBytes: size,
	}, payload: payload}
}

func (r fakeReceipts) Claim(_ context.Context, d intake.OrderDelivery, skus []string) (*intake.OrderReceipt, ports.OrderResolution, error) {
	if r.pooled {
		panic("Claim outside a unit of work")
	}
	rec := intake.ClaimOrderReceipt(r.stored(intakeKey{d.OrganizationID, d.OrderID}), d)
	r.store(rec, false) // a copy: what the use case does to rec counts only when it finishes the receipt
	return rec, r.state.resolveOrder(d.OrganizationID, skus), nil
}

// resolveOrder is the rule of ports.OrderResolution spelled out: the
// products found by SKU, and the default warehouse when active, else the
// first active by name then ID, else none.
func (s *fakeState) resolveOrder(org string, skus []string) ports.OrderResolution {
	res := ports.OrderResolution{Products: map[string]shipping.InventoryItem{}}
	for _, it := range s.items {
		if it.OrganizationID == org && it.Kind == shipping.KindProduct && slices.Contains(skus, it.SKU) {
			res.Products[it.SKU] = it
		}
	}
	ws := s.activeFor(org)
	if len(ws) == 0 {
		return res
	}
	pick := ws[0]
	for _, w := range ws {
		if w.ID == s.orgs[org].DefaultWarehouseID {
			pick = w
		}
	}
	res.Warehouse = &domain.WarehouseRef{ID: pick.ID, Name: pick.Name}
	return res
}

// Accept reserves s's lines, stores s and finishes rec, as the postgres
// adapter's one statement does.
func (r fakeReceipts) Accept(ctx context.Context, rec *intake.OrderReceipt, s *shipping.Shipment) error {
	if r.pooled {
		panic("Accept outside a unit of work")
	}
	if s.Kind() != shipping.PickPack {
		return fmt.Errorf("the intake reserves products, not %s", s.Kind())
	}
	if err := fakeInventory(r).Reserve(ctx, s.OrganizationID(), s.Warehouse().ID, s.Kind(), s.Lines()); err != nil {
		return err
	}
	if err := fakeShipments(r).Create(ctx, s); err != nil {
		return err
	}
	return r.Finish(ctx, rec)
}

func (r fakeReceipts) Finish(_ context.Context, rec *intake.OrderReceipt) error {
	if r.pooled {
		panic("Finish outside a unit of work")
	}
	if k := (intakeKey{rec.OrganizationID(), rec.OrderID()}); r.stored(k) == nil {
		return fmt.Errorf("finish: no receipt %v", k)
	}
	r.store(rec, true)
	return nil
}

func (r fakeReceipts) RecordFailure(_ context.Context, d intake.OrderDelivery, code string) (*intake.OrderReceipt, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	stored := r.stored(intakeKey{d.OrganizationID, d.OrderID})
	rec := intake.RecordFailedDelivery(stored, d, code)
	if rec == stored {
		return nil, nil
	}
	r.store(rec, true)
	return r.stored(intakeKey{d.OrganizationID, d.OrderID}), nil
}

// fakeEvents records events in the transaction's state: only a committed
// unit of work keeps them, as the outbox's rows.
type fakeEvents struct{ fakeRepos }

func (r fakeEvents) Record(_ context.Context, e ports.Event) error {
	if r.pooled {
		return fmt.Errorf("record %s outside a unit of work", e.Type)
	}
	r.state.events = append(r.state.events, e)
	return nil
}

// recorded returns the events committed so far.
func (db *fakeDB) recorded() []ports.Event {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Clone(db.state.events)
}

func (r fakeReceipts) Get(_ context.Context, org string, order int64) (*intake.OrderReceipt, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	if rec := r.stored(intakeKey{org, order}); rec != nil {
		return rec, nil
	}
	return nil, domain.ErrNotFound
}

// List is the rule of ports.OrderReceiptRepository spelled out: latest
// delivery first, then order ID descending.
func (r fakeReceipts) List(_ context.Context, org string, f ports.ReceiptFilter, page ports.Page) ([]*intake.OrderReceipt, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	var all []intakeStored
	for k, p := range r.state.receipts {
		if k.org == org && (f.Status == "" || p.Status == f.Status) && (f.Error == "" || p.LastError == f.Error) {
			all = append(all, p)
		}
	}
	slices.SortFunc(all, func(a, b intakeStored) int {
		return cmp.Or(b.LastReceived.Compare(a.LastReceived), cmp.Compare(b.OrderID, a.OrderID))
	})
	all = all[min(page.Skip, len(all)):]
	out := make([]*intake.OrderReceipt, 0, page.Take)
	for _, p := range all[:min(page.Take, len(all))] {
		out = append(out, intake.RehydrateOrderReceipt(p.OrderReceiptParams))
	}
	return out, len(all) > page.Take, nil
}

func (r fakeReceipts) GetWithPayload(_ context.Context, org string, order int64) (*intake.OrderReceipt, []byte, error) {
	end, err := r.begin()
	if err != nil {
		return nil, nil, err
	}
	defer end()
	rec := r.stored(intakeKey{org, order})
	if rec == nil {
		return nil, nil, domain.ErrNotFound
	}
	return rec, slices.Clone(r.state.receipts[intakeKey{org, order}].payload), nil
}

func (r fakeReceipts) ListKept(_ context.Context, org string, after int64, limit int) ([]int64, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	var ids []int64
	for k, p := range r.state.receipts {
		if k.org == org && k.order > after && p.payload != nil && p.Status == intake.ReceiptFailed {
			ids = append(ids, k.order)
		}
	}
	slices.Sort(ids)
	return ids[:min(limit, len(ids))], nil
}

func (r fakeReceipts) PurgePayloads(_ context.Context, cutoff time.Time, limit int) (int, error) {
	end, err := r.begin()
	if err != nil {
		return 0, err
	}
	defer end()
	n := 0
	for k, p := range r.state.receipts {
		if n < limit && p.payload != nil && p.LastReceived.Before(cutoff) {
			p.payload, p.PayloadBytes = nil, nil
			r.state.receipts[k] = p
			n++
		}
	}
	return n, nil
}

func (r fakeReceipts) FailedOrderStats(context.Context) (ports.FailedOrderStats, error) {
	end, err := r.begin()
	if err != nil {
		return ports.FailedOrderStats{}, err
	}
	defer end()
	stats := ports.FailedOrderStats{ByCode: map[string]int{}}
	for _, p := range r.state.receipts {
		if p.payload != nil && p.Status == intake.ReceiptFailed {
			stats.ByCode[p.LastError]++
			if stats.Oldest.IsZero() || p.FirstReceived.Before(stats.Oldest) {
				stats.Oldest = p.FirstReceived
			}
		}
	}
	return stats, nil
}

type fakeKeys struct{ fakeRepos }

func (r fakeKeys) Create(_ context.Context, k domain.APIKey) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	r.state.keys = append(r.state.keys, k)
	return nil
}

func (r fakeKeys) FindByHash(_ context.Context, hash []byte) (domain.APIKey, error) {
	end, err := r.begin()
	if err != nil {
		return domain.APIKey{}, err
	}
	defer end()
	for _, k := range r.state.keys {
		if string(k.Hash) == string(hash) {
			return k, nil
		}
	}
	return domain.APIKey{}, domain.ErrNotFound
}

func (r fakeKeys) Revoke(_ context.Context, id string) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	for i, k := range r.state.keys {
		if k.ID == id {
			now := time.Now()
			r.state.keys[i].RevokedAt = &now
			return nil
		}
	}
	return domain.ErrNotFound
}

func (r fakeKeys) ListByOrganization(_ context.Context, org string) ([]domain.APIKey, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	var out []domain.APIKey
	for _, k := range r.state.keys {
		if k.OrganizationID == org {
			out = append(out, k)
		}
	}
	return out, nil
}

// fakeClock is a clock that moves only when told.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// fakeIDs counts: shp_1, shp_2, ...
type fakeIDs struct {
	mu sync.Mutex
	n  int
}

func (g *fakeIDs) NewID(prefix string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	return fmt.Sprintf("%s_%d", prefix, g.n)
}

// testApp is every context's use cases on one fake database.
type testApp struct {
	*application.UseCases
	Shipping  *shippingapp.UseCases
	Warehouse *warehouseapp.UseCases
	Intake    *intakeapp.UseCases
	Invoicing *invoicingapp.UseCases
}

// fakeApp is the application on db, its use cases decorated as in
// production, at clock's time.
func fakeApp(db *fakeDB, env domain.Environment, clock *fakeClock, tracer trace.Tracer) *testApp {
	d := application.Deps{
		UnitOfWork: fakeUoW{db}, Repos: db.pool(), Clock: clock, IDs: &fakeIDs{},
		Tracer: tracer, Log: slog.New(slog.DiscardHandler), Environment: env,
	}
	return &testApp{
		UseCases:  application.New(d, keyGenerator{}, nil),
		Shipping:  shippingapp.New(d),
		Warehouse: warehouseapp.New(d, fakeBilling{}),
		Intake:    intakeapp.New(d, intakeapp.Settings{DecodeStorefrontOrder: fakeDecode, FailedOrderRetention: 24 * time.Hour}),
		Invoicing: invoicingapp.New(d),
	}
}

// intakeT0 is the time of the intake's tests.
var intakeT0 = time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)

// intakeApp is the application of the intake's tests.
func intakeApp(db *fakeDB, env domain.Environment) *testApp {
	return intakeAppTraced(db, env, noop.NewTracerProvider().Tracer("test"))
}

func intakeAppTraced(db *fakeDB, env domain.Environment, tracer trace.Tracer) *testApp {
	return fakeApp(db, env, &fakeClock{now: intakeT0}, tracer)
}

// shipFixture is the world of the shipment tests: org_ship_a with warehouse
// wh_a (active, name "East"), wh_off (inactive), wh_b of another
// organization; products prod_1, prod_2, cartons ctn_1 (5 at wh_a), ctn_2 (2
// at wh_a); org_ship_b owns prod_b and ctn_b.
func shipFixture() *fakeDB {
	db := newFakeDB()
	db.addWarehouse("wh_a", "East", true, "org_ship_a")
	db.addWarehouse("wh_off", "Closed", false, "org_ship_a")
	db.addWarehouse("wh_b", "West", true, "org_ship_b")
	db.addItem("org_ship_a", shipping.KindProduct, "prod_1", "TEE-BLK-M")
	db.addItem("org_ship_a", shipping.KindProduct, "prod_2", "TEE-WHT-L")
	db.addItem("org_ship_a", shipping.KindCarton, "ctn_1", "CTN-TEE-24")
	db.addItem("org_ship_a", shipping.KindCarton, "ctn_2", "CTN-MUG-12")
	db.addItem("org_ship_b", shipping.KindProduct, "prod_b", "B-TEE")
	db.addItem("org_ship_b", shipping.KindCarton, "ctn_b", "B-CTN")
	db.setStock("wh_a", "ctn_1", 5, 0)
	db.setStock("wh_a", "ctn_2", 2, 0)
	return db
}

// shipLinesString prints lines compactly for failure messages.
func shipLinesString(ls []shipping.ShipmentLine) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s/%s×%d", l.ItemID, l.SKU, l.Quantity)
	}
	return strings.Join(parts, " ")
}
