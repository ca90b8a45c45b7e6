package application_test

// In-memory fakes of the ports the order intake needs. Their names start
// with `intake` (other use cases' fakes live in this package too).

import (
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
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type intakeKey struct {
	org   string
	order int64
}

// intakeState is the fake database. A unit of work runs under the store's
// mutex on a copy that replaces the state only when fn succeeds, like a
// transaction.
type intakeState struct {
	receipts   map[intakeKey]domain.OrderReceiptParams
	shipments  map[string]*domain.Shipment
	reserved   map[string]int64 // warehouse/product → reserved
	products   map[string]domain.InventoryItem
	orgs       map[string]domain.Organization
	warehouses []intakeWarehouse
}

type intakeWarehouse struct {
	domain.Warehouse
	orgs []string
}

func (s intakeState) clone() intakeState {
	s.receipts = maps.Clone(s.receipts)
	s.shipments = maps.Clone(s.shipments)
	s.reserved = maps.Clone(s.reserved)
	s.products = maps.Clone(s.products)
	return s
}

type intakeStore struct {
	mu    sync.Mutex
	state intakeState
	// failCreate, when set, is returned by the receipts' Accept (where the
	// shipment is stored).
	failCreate error
	// down makes every repository call fail with domain.ErrUnavailable.
	down bool
}

func newIntakeStore() *intakeStore {
	return &intakeStore{state: intakeState{
		receipts: map[intakeKey]domain.OrderReceiptParams{}, shipments: map[string]*domain.Shipment{},
		reserved: map[string]int64{}, products: map[string]domain.InventoryItem{},
		orgs: map[string]domain.Organization{},
	}}
}

func (st *intakeStore) addProduct(org, id, sku string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.state.products[org+"/"+sku] = domain.InventoryItem{ID: id, OrganizationID: org, Kind: domain.KindProduct, SKU: sku, Name: sku}
}

func (st *intakeStore) addWarehouse(id, name string, active bool, orgs ...string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.state.warehouses = append(st.state.warehouses, intakeWarehouse{
		Warehouse: domain.Warehouse{ID: id, Name: name, Active: active}, orgs: orgs})
}

// receipt returns the stored receipt of an order; an empty one when there
// is none.
func (st *intakeStore) receipt(org string, order int64) (*domain.OrderReceipt, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	p, ok := st.state.receipts[intakeKey{org, order}]
	return domain.RehydrateOrderReceipt(p), ok
}

func (st *intakeStore) shipments() []*domain.Shipment {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Collect(maps.Values(st.state.shipments))
}

// repos returns repositories on state; tx tells whether they belong to a
// unit of work (Claim is only meaningful there).
func (st *intakeStore) repos(state *intakeState) ports.Repositories {
	return ports.Repositories{
		Organizations: &intakeOrgs{st, state},
		Receipts:      &intakeReceipts{st, state},
	}
}

func (st *intakeStore) check() error {
	if st.down {
		return fmt.Errorf("dial: %w", domain.ErrUnavailable)
	}
	return nil
}

type intakeUoW struct{ st *intakeStore }

func (u intakeUoW) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	u.st.mu.Lock()
	defer u.st.mu.Unlock()
	if err := u.st.check(); err != nil {
		return err
	}
	tx := u.st.state.clone()
	if err := fn(ctx, u.st.repos(&tx)); err != nil {
		return err
	}
	u.st.state = tx
	return nil
}

// intakePool is the store's repositories outside a unit of work: each call
// takes the mutex, as a statement of its own would.
type intakePool struct{ st *intakeStore }

func (p intakePool) receipts() ports.OrderReceiptRepository { return &intakePoolReceipts{p.st} }

type intakePoolReceipts struct{ st *intakeStore }

func (r *intakePoolReceipts) Claim(context.Context, domain.OrderDelivery, []string) (*domain.OrderReceipt, ports.OrderResolution, error) {
	panic("Claim outside a unit of work")
}

func (r *intakePoolReceipts) Finish(context.Context, *domain.OrderReceipt) error {
	panic("Finish outside a unit of work")
}

func (r *intakePoolReceipts) Accept(context.Context, *domain.OrderReceipt, *domain.Shipment) error {
	panic("Accept outside a unit of work")
}

func (r *intakePoolReceipts) RecordFailure(ctx context.Context, d domain.OrderDelivery, code string) error {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return (&intakeReceipts{r.st, &r.st.state}).RecordFailure(ctx, d, code)
}

func (r *intakePoolReceipts) Get(ctx context.Context, org string, order int64) (*domain.OrderReceipt, error) {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return (&intakeReceipts{r.st, &r.st.state}).Get(ctx, org, order)
}

// intakeReceipts keeps receipts as the parameters they are stored with;
// Claim and RecordFailure apply the domain's rules, as the postgres
// adapter's statements do.
type intakeReceipts struct {
	st    *intakeStore
	state *intakeState
}

// stored is the receipt of k, or nil.
func (r *intakeReceipts) stored(k intakeKey) *domain.OrderReceipt {
	if p, ok := r.state.receipts[k]; ok {
		return domain.RehydrateOrderReceipt(p)
	}
	return nil
}

func (r *intakeReceipts) store(rec *domain.OrderReceipt) {
	r.state.receipts[intakeKey{rec.OrganizationID(), rec.OrderID()}] = domain.OrderReceiptParams{
		OrganizationID: rec.OrganizationID(), OrderID: rec.OrderID(), OrderNumber: rec.OrderNumber(), Status: rec.Status(),
		Skipped: rec.Skipped(), Attempts: rec.Attempts(), LastError: rec.LastError(), ShipmentID: rec.ShipmentID(),
		TraceID: rec.TraceID(), FirstReceived: rec.FirstReceived(), LastReceived: rec.LastReceived(),
	}
}

func (r *intakeReceipts) Claim(_ context.Context, d domain.OrderDelivery, skus []string) (*domain.OrderReceipt, ports.OrderResolution, error) {
	if err := r.st.check(); err != nil {
		return nil, ports.OrderResolution{}, err
	}
	rec := domain.ClaimOrderReceipt(r.stored(intakeKey{d.OrganizationID, d.OrderID}), d)
	r.store(rec) // a copy: what the use case does to rec counts only when it finishes the receipt
	return rec, resolveOrder(r.state, d.OrganizationID, skus), nil
}

// Accept reserves s's lines, stores s and finishes rec, as the postgres
// adapter's one statement does.
func (r *intakeReceipts) Accept(ctx context.Context, rec *domain.OrderReceipt, s *domain.Shipment) error {
	if err := r.st.check(); err != nil {
		return err
	}
	if s.Kind() != domain.PickPack {
		return fmt.Errorf("the intake reserves products, not %s", s.Kind())
	}
	for _, l := range s.Lines() {
		r.state.reserved[s.Warehouse().ID+"/"+l.ItemID] += l.Quantity
	}
	if r.st.failCreate != nil {
		return r.st.failCreate
	}
	if _, ok := r.state.shipments[s.ID()]; ok {
		return domain.ErrConflict
	}
	r.state.shipments[s.ID()] = s
	return r.Finish(ctx, rec)
}

func (r *intakeReceipts) Finish(_ context.Context, rec *domain.OrderReceipt) error {
	if err := r.st.check(); err != nil {
		return err
	}
	if k := (intakeKey{rec.OrganizationID(), rec.OrderID()}); r.stored(k) == nil {
		return fmt.Errorf("finish: no receipt %v", k)
	}
	r.store(rec)
	return nil
}

func (r *intakeReceipts) RecordFailure(_ context.Context, d domain.OrderDelivery, code string) error {
	if err := r.st.check(); err != nil {
		return err
	}
	r.store(domain.RecordFailedDelivery(r.stored(intakeKey{d.OrganizationID, d.OrderID}), d, code))
	return nil
}

func (r *intakeReceipts) Get(_ context.Context, org string, order int64) (*domain.OrderReceipt, error) {
	if err := r.st.check(); err != nil {
		return nil, err
	}
	p, ok := r.state.receipts[intakeKey{org, order}]
	if !ok {
		return nil, domain.ErrNotFound
	}
	return domain.RehydrateOrderReceipt(p), nil
}

type intakeOrgs struct {
	st    *intakeStore
	state *intakeState
}

func (r *intakeOrgs) Get(_ context.Context, id string) (domain.Organization, error) {
	o, ok := r.state.orgs[id]
	if !ok {
		return domain.Organization{}, domain.ErrNotFound
	}
	return o, nil
}

// activeWarehouses are the organization's active warehouses by name then ID.
func activeWarehouses(state *intakeState, org string) []domain.Warehouse {
	var out []domain.Warehouse
	for _, w := range state.warehouses {
		if w.Active && slices.Contains(w.orgs, org) {
			out = append(out, w.Warehouse)
		}
	}
	slices.SortFunc(out, func(a, b domain.Warehouse) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// resolveOrder is the rule of ports.OrderResolution, spelled out: the
// products found by SKU, and the default warehouse when active, else the
// first active by name then ID, else none.
func resolveOrder(state *intakeState, org string, skus []string) ports.OrderResolution {
	res := ports.OrderResolution{Products: map[string]domain.InventoryItem{}}
	for _, s := range skus {
		if it, ok := state.products[org+"/"+s]; ok {
			res.Products[s] = it
		}
	}
	ws := activeWarehouses(state, org)
	if len(ws) == 0 {
		return res
	}
	pick := ws[0]
	for _, w := range ws {
		if w.ID == state.orgs[org].DefaultWarehouseID {
			pick = w
		}
	}
	res.Warehouse = &domain.WarehouseRef{ID: pick.ID, Name: pick.Name}
	return res
}

type intakeClock struct{ now time.Time }

func (c intakeClock) Now() time.Time { return c.now }

type intakeIDs struct {
	mu sync.Mutex
	n  int
}

func (g *intakeIDs) NewID(prefix string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	return fmt.Sprintf("%s_%04d", prefix, g.n)
}

// intakeApp is the application on a fake store, its use cases decorated
// as in production.
func intakeApp(st *intakeStore, env domain.Environment) *application.Application {
	return intakeAppTraced(st, env, noop.NewTracerProvider().Tracer("test"))
}

func intakeAppTraced(st *intakeStore, env domain.Environment, tracer trace.Tracer) *application.Application {
	repos := st.repos(&st.state)
	repos.Receipts = intakePool{st}.receipts()
	return application.New(application.Deps{
		UnitOfWork: intakeUoW{st}, Repos: repos, Clock: intakeClock{time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)},
		IDs: &intakeIDs{}, Tracer: tracer, Log: slog.New(slog.DiscardHandler),
		Environment: env,
	})
}
