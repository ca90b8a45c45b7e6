package apptest

// The fake database, its unit of work, and the repositories of the kernel
// (organizations, warehouses, API keys), the events' outbox, the clock and
// the IDs.

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// DB is the fake database.
type DB struct {
	mu      sync.Mutex
	State   State
	Commits int // units of work committed
	// FailCreate, when set, is returned where a shipment is stored (the
	// shipment repository's Create, the receipts' Accept).
	FailCreate error
	// Down makes every unit of work and every call outside one fail with
	// domain.ErrUnavailable.
	Down bool
	// Audit keeps the operators' audit records, committed or not.
	Audit AuditLog
}

// State is what a transaction copies.
type State struct {
	Orgs       map[string]domain.Organization
	Warehouses []Warehouse                       // in the order they were added
	Items      map[string]shipping.InventoryItem // products and cartons, by ID
	Stock      map[stockKey]StockLevel
	Shipments  map[string]*shipping.Shipment // by ID; stored copies
	Receipts   map[IntakeKey]IntakeStored
	Keys       []domain.APIKey
	Events     []eventsports.Event // recorded by committed units of work, in order
	wh         warehouseSideState  // warehouse.go
}

// Warehouse is a warehouse and the organizations it serves.
type Warehouse struct {
	domain.Warehouse
	Orgs []string
}

type stockKey struct{ warehouse, item string }

// StockLevel is an item's stock at a warehouse.
type StockLevel struct{ OnHand, Reserved int64 }

// NewDB is an empty database.
func NewDB() *DB {
	return &DB{State: State{
		Orgs: map[string]domain.Organization{}, Items: map[string]shipping.InventoryItem{}, Stock: map[stockKey]StockLevel{},
		Shipments: map[string]*shipping.Shipment{}, Receipts: map[IntakeKey]IntakeStored{},
	}}
}

func (s State) clone() State {
	s.Orgs = maps.Clone(s.Orgs)
	s.Warehouses = slices.Clone(s.Warehouses)
	s.Items = maps.Clone(s.Items)
	s.Stock = maps.Clone(s.Stock)
	s.Shipments = maps.Clone(s.Shipments) // values are replaced, never changed
	s.Receipts = maps.Clone(s.Receipts)
	s.Keys = slices.Clone(s.Keys)
	s.Events = slices.Clone(s.Events)
	s.wh = s.wh.clone()
	return s
}

// AddWarehouse adds a warehouse serving orgs.
func (db *DB) AddWarehouse(id, name string, active bool, orgs ...string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.State.Warehouses = append(db.State.Warehouses, Warehouse{Warehouse: domain.Warehouse{ID: id, Name: name, Active: active}, Orgs: orgs})
}

// AddItem adds a product or a carton of org.
func (db *DB) AddItem(org string, kind shipping.ItemKind, id, sku string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.State.Items[id] = shipping.InventoryItem{ID: id, OrganizationID: org, Kind: kind, SKU: sku, Name: sku}
}

// AddProduct adds a product of org.
func (db *DB) AddProduct(org, id, sku string) { db.AddItem(org, shipping.KindProduct, id, sku) }

// SetStock sets an item's stock at a warehouse.
func (db *DB) SetStock(warehouse, item string, onHand, reserved int64) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.State.Stock[stockKey{warehouse, item}] = StockLevel{OnHand: onHand, Reserved: reserved}
}

// Level is an item's stock at a warehouse.
func (db *DB) Level(warehouse, item string) StockLevel {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.State.Stock[stockKey{warehouse, item}]
}

func (db *DB) check() error {
	if db.Down {
		return fmt.Errorf("dial: %w", domain.ErrUnavailable)
	}
	return nil
}

// Fakes are the fake repositories on one state: a transaction's copy, or
// the state itself (pooled: each call takes the mutex). A context's bind
// (ShippingRepositories, …) makes its Repositories of them.
type Fakes struct{ f fakeRepos }

func (db *DB) fakes(state *State, pooled bool) Fakes {
	return Fakes{fakeRepos{db: db, State: state, pooled: pooled}}
}

// ShippingRepositories binds the shipping context's repositories.
func ShippingRepositories(x Fakes) shippingports.Repositories {
	f := x.f
	return shippingports.Repositories{
		Shipments: fakeShipments{f}, Inventory: fakeInventory{f}, Warehouses: fakeWarehouses{f}, Stock: fakeStockLedger{f},
		Trail: auditports.Trail{Audit: &f.db.Audit, Events: fakeEvents{f}},
	}
}

// IntakeRepositories binds the intake's repositories.
func IntakeRepositories(x Fakes) intakeports.Repositories {
	f := x.f
	return intakeports.Repositories{
		Receipts: fakeReceipts{f}, Organizations: fakeOrgs{f}, Warehouses: fakeWarehouses{f},
		Trail: auditports.Trail{Audit: &f.db.Audit, Events: fakeEvents{f}},
	}
}

// WarehouseRepositories binds the warehouse context's repositories; it
// has no fakes of billing's (Billing stands for billing's part).
func WarehouseRepositories(x Fakes) warehouseports.Repositories {
	f := x.f
	return warehouseports.Repositories{
		Warehouses: fakeWarehouses{f}, Inventory: fakeInventory{f}, Shipments: fakeShipments{f}, Stock: fakeStockLedger{f},
		WarehouseReceipts: fakeWarehouseReceipts{f}, WarehouseServices: fakeWarehouseServices{f},
		Events: fakeEvents{f},
	}
}

// AccessRepositories binds the access context's repositories.
func AccessRepositories(x Fakes) accessports.Repositories {
	f := x.f
	return accessports.Repositories{
		Organizations: fakeOrgs{f}, Warehouses: fakeWarehouses{f}, APIKeys: fakeKeys{f},
		Trail: auditports.Trail{Audit: &f.db.Audit, Events: fakeEvents{f}},
	}
}

// Pool is a context's repositories outside a unit of work.
func Pool[R any](db *DB, bind func(Fakes) R) R { return bind(db.fakes(&db.State, true)) }

// Lock and Unlock hold the database for a test that changes its State
// directly.
func (db *DB) Lock()   { db.mu.Lock() }
func (db *DB) Unlock() { db.mu.Unlock() }

// UnitOfWork is db's unit of work for the context whose repositories bind
// makes.
func UnitOfWork[R any](db *DB, bind func(Fakes) R) ports.UnitOfWork[R] { return fakeUoW[R]{db, bind} }

// fakeUoW implements ports.UnitOfWork on a DB: fn runs under the
// mutex (the row locks of a real database, all at once) on a copy that
// replaces the state only when fn succeeds.
type fakeUoW[R any] struct {
	db   *DB
	bind func(Fakes) R
}

func (u fakeUoW[R]) Do(ctx context.Context, fn func(ctx context.Context, r R) error) error {
	u.db.mu.Lock()
	defer u.db.mu.Unlock()
	if err := u.db.check(); err != nil {
		return err
	}
	tx := u.db.State.clone()
	if err := fn(ctx, u.bind(u.db.fakes(&tx, false))); err != nil {
		return err
	}
	u.db.State = tx
	u.db.Commits++
	return nil
}

type fakeRepos struct {
	db     *DB
	State  *State
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

func (r fakeOrgs) List(_ context.Context, page ports.Page) ([]domain.Organization, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	ids := make([]string, 0, len(r.State.Orgs))
	for id := range r.State.Orgs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []domain.Organization
	for i := page.Skip; i < len(ids) && len(out) < page.Take; i++ {
		out = append(out, r.State.Orgs[ids[i]])
	}
	return out, page.Skip+len(out) < len(ids), nil
}

func (r fakeOrgs) Get(_ context.Context, id string) (domain.Organization, error) {
	end, err := r.begin()
	if err != nil {
		return domain.Organization{}, err
	}
	defer end()
	o, ok := r.State.Orgs[id]
	if !ok {
		return domain.Organization{}, domain.ErrNotFound
	}
	return o, nil
}

type fakeWarehouses struct{ fakeRepos }

// activeFor are the organization's active warehouses by name then ID.
func (s *State) activeFor(org string) []domain.Warehouse {
	var out []domain.Warehouse
	for _, w := range s.Warehouses {
		if w.Active && slices.Contains(w.Orgs, org) {
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
	ws := r.State.activeFor(org)
	ws, more := pageOf(ws, page)
	return ws, more, nil
}

func (r fakeWarehouses) IsActive(_ context.Context, id string) (bool, error) {
	end, err := r.begin()
	if err != nil {
		return false, err
	}
	defer end()
	for _, w := range r.State.Warehouses {
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
	for _, w := range r.State.activeFor(org) {
		if w.ID == id {
			return w, nil
		}
	}
	return domain.Warehouse{}, domain.ErrNotFound
}

// fakeEvents records events in the transaction's state: only a committed
// unit of work keeps them, as the outbox's rows.
type fakeEvents struct{ fakeRepos }

func (r fakeEvents) Record(_ context.Context, e eventsports.Event) error {
	if r.pooled {
		return fmt.Errorf("record %s outside a unit of work", e.Type)
	}
	r.State.Events = append(r.State.Events, e)
	return nil
}

// Recorded returns the events committed so far.
func (db *DB) Recorded() []eventsports.Event {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Clone(db.State.Events)
}

type fakeKeys struct{ fakeRepos }

func (r fakeKeys) Create(_ context.Context, k domain.APIKey) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	r.State.Keys = append(r.State.Keys, k)
	return nil
}

func (r fakeKeys) FindByHash(_ context.Context, hash []byte) (domain.APIKey, error) {
	end, err := r.begin()
	if err != nil {
		return domain.APIKey{}, err
	}
	defer end()
	for _, k := range r.State.Keys {
		if string(k.Hash) == string(hash) {
			return k, nil
		}
	}
	return domain.APIKey{}, domain.ErrNotFound
}

func (r fakeKeys) Revoke(_ context.Context, id string) (domain.APIKey, error) {
	end, err := r.begin()
	if err != nil {
		return domain.APIKey{}, err
	}
	defer end()
	for i, k := range r.State.Keys {
		if k.ID == id {
			if k.RevokedAt == nil {
				now := time.Now()
				r.State.Keys[i].RevokedAt = &now
			}
			return k, nil
		}
	}
	return domain.APIKey{}, domain.ErrNotFound
}

func (r fakeKeys) ListByOrganization(_ context.Context, org string) ([]domain.APIKey, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	var out []domain.APIKey
	for _, k := range r.State.Keys {
		if k.OrganizationID == org {
			out = append(out, k)
		}
	}
	return out, nil
}

// Clock is a clock that moves only when told.
type Clock struct{ At time.Time }

func (c *Clock) Now() time.Time { return c.At }

// IDs counts: shp_1, shp_2, ...
type IDs struct {
	mu sync.Mutex
	n  int
}

func (g *IDs) NewID(prefix string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	return fmt.Sprintf("%s_%d", prefix, g.n)
}

// WantEvents compares the recorded events' types and subjects.
func WantEvents(t *testing.T, got []eventsports.Event, want ...string) {
	t.Helper()
	var gotS []string
	for _, e := range got {
		gotS = append(gotS, string(e.Type)+" "+e.Subject)
	}
	if fmt.Sprint(gotS) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", gotS, want)
	}
}

// WantReserved fails the test unless item's reserved stock at warehouse
// is want; why, when given, says whose it is.
func (db *DB) WantReserved(t *testing.T, warehouse, item string, want int64, why string) {
	t.Helper()
	if got := db.Level(warehouse, item).Reserved; got != want {
		t.Fatalf("%s reserved %d, want %d %s", item, got, want, why)
	}
}

// WantLevel fails the test unless item's stock at warehouse is want; what
// names it in the message.
func (db *DB) WantLevel(t *testing.T, warehouse, item string, want StockLevel, what string) {
	t.Helper()
	if l := db.Level(warehouse, item); l != want {
		t.Fatalf("%s %+v, want %s", item, l, what)
	}
}

// pageOf is the page of all, in order, and whether more follow it.
// listOf is a list's call outside a unit of work (begin): what keep makes
// of the values of records (of the state) it keeps, in order, one page of
// it, and whether more follow.
func listOf[K comparable, V, T any](r fakeRepos, records func(*State) map[K]V, keep func(K, V) (T, bool),
	order func(a, b T) int, page ports.Page) ([]T, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	var all []T
	for k, v := range records(r.State) {
		if t, ok := keep(k, v); ok {
			all = append(all, t)
		}
	}
	slices.SortFunc(all, order)
	all, more := pageOf(all, page)
	return all, more, nil
}

func pageOf[T any](all []T, page ports.Page) ([]T, bool) {
	all = all[min(page.Skip, len(all)):]
	return all[:min(page.Take, len(all))], len(all) > page.Take
}
