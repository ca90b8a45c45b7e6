package application_test

// In-memory fakes of the ports the order intake needs. Their names start
// with `intake` (other use cases' fakes live in this package too).

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
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// intakeStored is a receipt as stored: its parameters and its kept body.
type intakeStored struct {
	domain.OrderReceiptParams
	payload []byte
}

type intakeKey struct {
	org   string
	order int64
}

// intakeState is the fake database. A unit of work runs under the store's
// mutex on a copy that replaces the state only when fn succeeds, like a
// transaction.
type intakeState struct {
	receipts   map[intakeKey]intakeStored
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
	// failCreate, when set, is returned by the shipment repository's Create.
	failCreate error
	// down makes every repository call fail with domain.ErrUnavailable.
	down bool
}

func newIntakeStore() *intakeStore {
	return &intakeStore{state: intakeState{
		receipts: map[intakeKey]intakeStored{}, shipments: map[string]*domain.Shipment{},
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
	return domain.RehydrateOrderReceipt(p.OrderReceiptParams), ok
}

// payload returns the body kept with an order's receipt (nil: none).
func (st *intakeStore) payload(org string, order int64) []byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.state.receipts[intakeKey{org, order}].payload
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
		Inventory:     &intakeInventory{st: st, state: state},
		Shipments:     &intakeShipments{st: st, state: state},
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

func (r *intakePoolReceipts) Claim(context.Context, domain.OrderDelivery) (*domain.OrderReceipt, error) {
	panic("Claim outside a unit of work")
}

func (r *intakePoolReceipts) Finish(context.Context, *domain.OrderReceipt) error {
	panic("Finish outside a unit of work")
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

func (r *intakePoolReceipts) List(ctx context.Context, org string, f ports.ReceiptFilter, page ports.Page) ([]*domain.OrderReceipt, bool, error) {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return (&intakeReceipts{r.st, &r.st.state}).List(ctx, org, f, page)
}

func (r *intakePoolReceipts) GetWithPayload(ctx context.Context, org string, order int64) (*domain.OrderReceipt, []byte, error) {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return (&intakeReceipts{r.st, &r.st.state}).GetWithPayload(ctx, org, order)
}

func (r *intakePoolReceipts) ListKept(ctx context.Context, org string, after int64, limit int) ([]int64, error) {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return (&intakeReceipts{r.st, &r.st.state}).ListKept(ctx, org, after, limit)
}

func (r *intakePoolReceipts) PurgePayloads(ctx context.Context, cutoff time.Time, limit int) (int, error) {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return (&intakeReceipts{r.st, &r.st.state}).PurgePayloads(ctx, cutoff, limit)
}

func (r *intakePoolReceipts) FailedOrderStats(ctx context.Context) (ports.FailedOrderStats, error) {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return (&intakeReceipts{r.st, &r.st.state}).FailedOrderStats(ctx)
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
		return domain.RehydrateOrderReceipt(p.OrderReceiptParams)
	}
	return nil
}

// store keeps rec; keep tells whether the body rec's last transition keeps
// replaces the stored one (a claim keeps the stored body as it is).
func (r *intakeReceipts) store(rec *domain.OrderReceipt, keep bool) {
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
	r.state.receipts[k] = intakeStored{OrderReceiptParams: domain.OrderReceiptParams{
		OrganizationID: rec.OrganizationID(), OrderID: rec.OrderID(), OrderNumber: rec.OrderNumber(), Status: rec.Status(),
		Skipped: rec.Skipped(), Attempts: rec.Attempts(), LastError: rec.LastError(), ShipmentID: rec.ShipmentID(),
		TraceID: rec.TraceID(), FirstReceived: rec.FirstReceived(), LastReceived: rec.LastReceived(), PayloadBytes: size,
	}, payload: payload}
}

func (r *intakeReceipts) Claim(_ context.Context, d domain.OrderDelivery) (*domain.OrderReceipt, error) {
	if err := r.st.check(); err != nil {
		return nil, err
	}
	rec := domain.ClaimOrderReceipt(r.stored(intakeKey{d.OrganizationID, d.OrderID}), d)
	r.store(rec, false) // a copy: what the use case does to rec counts only when it finishes the receipt
	return rec, nil
}

func (r *intakeReceipts) Finish(_ context.Context, rec *domain.OrderReceipt) error {
	if err := r.st.check(); err != nil {
		return err
	}
	if k := (intakeKey{rec.OrganizationID(), rec.OrderID()}); r.stored(k) == nil {
		return fmt.Errorf("finish: no receipt %v", k)
	}
	r.store(rec, true)
	return nil
}

func (r *intakeReceipts) RecordFailure(_ context.Context, d domain.OrderDelivery, code string) error {
	if err := r.st.check(); err != nil {
		return err
	}
	stored := r.stored(intakeKey{d.OrganizationID, d.OrderID})
	rec := domain.RecordFailedDelivery(stored, d, code)
	r.store(rec, rec != stored)
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
	return domain.RehydrateOrderReceipt(p.OrderReceiptParams), nil
}

// List is the rule of ports.OrderReceiptRepository spelled out: latest
// delivery first, then order ID descending.
func (r *intakeReceipts) List(_ context.Context, org string, f ports.ReceiptFilter, page ports.Page) ([]*domain.OrderReceipt, bool, error) {
	if err := r.st.check(); err != nil {
		return nil, false, err
	}
	var all []intakeStored
	for k, p := range r.state.receipts {
		if k.org == org && (f.Status == "" || p.Status == f.Status) && (f.Error == "" || p.LastError == f.Error) {
			all = append(all, p)
		}
	}
	slices.SortFunc(all, func(a, b intakeStored) int {
		if c := b.LastReceived.Compare(a.LastReceived); c != 0 {
			return c
		}
		return cmp.Compare(b.OrderID, a.OrderID)
	})
	all = all[min(page.Skip, len(all)):]
	more := len(all) > page.Take
	out := make([]*domain.OrderReceipt, 0, page.Take)
	for _, p := range all[:min(page.Take, len(all))] {
		out = append(out, domain.RehydrateOrderReceipt(p.OrderReceiptParams))
	}
	return out, more, nil
}

func (r *intakeReceipts) GetWithPayload(ctx context.Context, org string, order int64) (*domain.OrderReceipt, []byte, error) {
	rec, err := r.Get(ctx, org, order)
	if err != nil {
		return nil, nil, err
	}
	return rec, slices.Clone(r.state.receipts[intakeKey{org, order}].payload), nil
}

func (r *intakeReceipts) ListKept(_ context.Context, org string, after int64, limit int) ([]int64, error) {
	if err := r.st.check(); err != nil {
		return nil, err
	}
	var ids []int64
	for k, p := range r.state.receipts {
		if k.org == org && k.order > after && p.payload != nil && p.Status == domain.ReceiptFailed {
			ids = append(ids, k.order)
		}
	}
	slices.Sort(ids)
	return ids[:min(limit, len(ids))], nil
}

func (r *intakeReceipts) PurgePayloads(_ context.Context, cutoff time.Time, limit int) (int, error) {
	if err := r.st.check(); err != nil {
		return 0, err
	}
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

func (r *intakeReceipts) FailedOrderStats(context.Context) (ports.FailedOrderStats, error) {
	if err := r.st.check(); err != nil {
		return ports.FailedOrderStats{}, err
	}
	stats := ports.FailedOrderStats{ByCode: map[string]int{}}
	for _, p := range r.state.receipts {
		if p.payload != nil && p.Status == domain.ReceiptFailed {
			stats.ByCode[p.LastError]++
			if stats.Oldest.IsZero() || p.FirstReceived.Before(stats.Oldest) {
				stats.Oldest = p.FirstReceived
			}
		}
	}
	return stats, nil
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

type intakeInventory struct {
	ports.InventoryRepository // methods the intake does not use panic
	st                        *intakeStore
	state                     *intakeState
}

// ResolveOrder is the rule of ports.InventoryRepository, spelled out: the
// products found by SKU, and the default warehouse when active, else the
// first active by name then ID, else none.
func (r *intakeInventory) ResolveOrder(_ context.Context, org string, skus []string) (ports.OrderResolution, error) {
	res := ports.OrderResolution{Products: map[string]domain.InventoryItem{}}
	for _, s := range skus {
		if it, ok := r.state.products[org+"/"+s]; ok {
			res.Products[s] = it
		}
	}
	ws := activeWarehouses(r.state, org)
	if len(ws) == 0 {
		return res, nil
	}
	pick := ws[0]
	for _, w := range ws {
		if w.ID == r.state.orgs[org].DefaultWarehouseID {
			pick = w
		}
	}
	res.Warehouse = &domain.WarehouseRef{ID: pick.ID, Name: pick.Name}
	return res, nil
}

func (r *intakeInventory) Reserve(_ context.Context, wh string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error {
	if kind != domain.PickPack {
		return fmt.Errorf("the intake reserves products, not %s", kind)
	}
	for _, l := range lines {
		r.state.reserved[wh+"/"+l.ItemID] += l.Quantity
	}
	return nil
}

type intakeShipments struct {
	ports.ShipmentRepository // methods the intake does not use panic
	st                       *intakeStore
	state                    *intakeState
}

func (r *intakeShipments) Create(_ context.Context, s *domain.Shipment) error {
	if r.st.failCreate != nil {
		return r.st.failCreate
	}
	if _, ok := r.state.shipments[s.ID()]; ok {
		return domain.ErrConflict
	}
	r.state.shipments[s.ID()] = s
	return nil
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
		Environment: env, DecodeStorefrontOrder: fakeDecode, FailedOrderRetention: 24 * time.Hour,
	})
}
