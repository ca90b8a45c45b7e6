package apptest

// The fakes of the intake: the order receipts kept with their bodies, and
// the storefront's orders as the intake's tests make them.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// IntakeKey is a receipt's key: the organization and the order.
type IntakeKey struct {
	Org   string
	Order int64
}

// IntakeStored is a receipt as stored: its parameters and its kept body.
type IntakeStored struct {
	intake.OrderReceiptParams
	Payload []byte
}

// Receipt returns the stored receipt of an order and whether there is one.
func (db *DB) Receipt(org string, order int64) (*intake.OrderReceipt, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	p, ok := db.State.Receipts[IntakeKey{org, order}]
	return intake.RehydrateOrderReceipt(p.OrderReceiptParams), ok
}

// Payload returns the body kept with an order's receipt (nil: none).
func (db *DB) Payload(org string, order int64) []byte {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.State.Receipts[IntakeKey{org, order}].Payload
}

// fakeReceipts keeps receipts as the parameters they are stored with;
// Claim and RecordFailure apply the domain's rules, as the postgres
// adapter's statements do.
type fakeReceipts struct{ fakeRepos }

// stored is the receipt of k, or nil.
func (r fakeReceipts) stored(k IntakeKey) *intake.OrderReceipt {
	if p, ok := r.State.Receipts[k]; ok {
		return intake.RehydrateOrderReceipt(p.OrderReceiptParams)
	}
	return nil
}

// store keeps rec; keep tells whether the body rec's last transition keeps
// replaces the stored one (a claim keeps the stored body as it is).
func (r fakeReceipts) store(rec *intake.OrderReceipt, keep bool) {
	k := IntakeKey{rec.OrganizationID(), rec.OrderID()}
	payload := r.State.Receipts[k].Payload
	if keep {
		payload = slices.Clone(rec.Payload())
	}
	var size *int
	if payload != nil {
		n := len(payload)
		size = &n
	}
	r.State.Receipts[k] = IntakeStored{OrderReceiptParams: intake.OrderReceiptParams{
		OrganizationID: rec.OrganizationID(), OrderID: rec.OrderID(), OrderNumber: rec.OrderNumber(), Status: rec.Status(),
		Skipped: rec.Skipped(), Attempts: rec.Attempts(), LastError: rec.LastError(), ShipmentID: rec.ShipmentID(),
		TraceID: rec.TraceID(), FirstReceived: rec.FirstReceived(), LastReceived: rec.LastReceived(), PayloadBytes: size,
	}, Payload: payload}
}

func (r fakeReceipts) Claim(_ context.Context, d intake.OrderDelivery, skus []string) (*intake.OrderReceipt, intakeports.OrderResolution, error) {
	if r.pooled {
		panic("Claim outside a unit of work")
	}
	rec := intake.ClaimOrderReceipt(r.stored(IntakeKey{d.OrganizationID, d.OrderID}), d)
	r.store(rec, false) // a copy: what the use case does to rec counts only when it finishes the receipt
	return rec, r.State.resolveOrder(d.OrganizationID, skus), nil
}

// resolveOrder is the rule of intakeports.OrderResolution spelled out: the
// products found by SKU, and the default warehouse when active, else the
// first active by name then ID, else none.
func (s *State) resolveOrder(org string, skus []string) intakeports.OrderResolution {
	res := intakeports.OrderResolution{Products: map[string]shipping.InventoryItem{}}
	for _, it := range s.Items {
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
		if w.ID == s.Orgs[org].DefaultWarehouseID {
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
	if k := (IntakeKey{rec.OrganizationID(), rec.OrderID()}); r.stored(k) == nil {
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
	stored := r.stored(IntakeKey{d.OrganizationID, d.OrderID})
	rec := intake.RecordFailedDelivery(stored, d, code)
	if rec == stored {
		return nil, nil
	}
	r.store(rec, true)
	return r.stored(IntakeKey{d.OrganizationID, d.OrderID}), nil
}

func (r fakeReceipts) Get(_ context.Context, org string, order int64) (*intake.OrderReceipt, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	if rec := r.stored(IntakeKey{org, order}); rec != nil {
		return rec, nil
	}
	return nil, domain.ErrNotFound
}

// List is the rule of intakeports.OrderReceiptRepository spelled out: latest
// delivery first, then order ID descending.
func (r fakeReceipts) List(_ context.Context, org string, f intakeports.ReceiptFilter, page ports.Page) ([]*intake.OrderReceipt, bool, error) {
	return listOf(r.fakeRepos, func(s *State) map[IntakeKey]IntakeStored { return s.Receipts },
		func(k IntakeKey, p IntakeStored) (*intake.OrderReceipt, bool) {
			keep := k.Org == org && (f.Status == "" || p.Status == f.Status) && (f.Error == "" || p.LastError == f.Error)
			if !keep {
				return nil, false
			}
			return intake.RehydrateOrderReceipt(p.OrderReceiptParams), true
		}, func(a, b *intake.OrderReceipt) int {
			return cmp.Or(b.LastReceived().Compare(a.LastReceived()), cmp.Compare(b.OrderID(), a.OrderID()))
		}, page)
}

func (r fakeReceipts) GetWithPayload(_ context.Context, org string, order int64) (*intake.OrderReceipt, []byte, error) {
	end, err := r.begin()
	if err != nil {
		return nil, nil, err
	}
	defer end()
	rec := r.stored(IntakeKey{org, order})
	if rec == nil {
		return nil, nil, domain.ErrNotFound
	}
	return rec, slices.Clone(r.State.Receipts[IntakeKey{org, order}].Payload), nil
}

func (r fakeReceipts) ListKept(_ context.Context, org, code string, after int64, limit int) ([]int64, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	var ids []int64
	for k, p := range r.State.Receipts {
		if k.Org == org && k.Order > after && p.Payload != nil && p.Status == intake.ReceiptFailed &&
			(code == "" || p.LastError == code) {
			ids = append(ids, k.Order)
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
	for k, p := range r.State.Receipts {
		if n < limit && p.Payload != nil && p.LastReceived.Before(cutoff) {
			p.Payload, p.PayloadBytes = nil, nil
			r.State.Receipts[k] = p
			n++
		}
	}
	return n, nil
}

func (r fakeReceipts) FailedOrderStats(context.Context) (intakeports.FailedOrderStats, error) {
	end, err := r.begin()
	if err != nil {
		return intakeports.FailedOrderStats{}, err
	}
	defer end()
	stats := intakeports.FailedOrderStats{ByCode: map[string]int{}}
	for _, p := range r.State.Receipts {
		if p.Payload != nil && p.Status == intake.ReceiptFailed {
			stats.ByCode[p.LastError]++
			if stats.Oldest.IsZero() || p.FirstReceived.Before(stats.Oldest) {
				stats.Oldest = p.FirstReceived
			}
		}
	}
	return stats, nil
}

// IntakeT0 is the time of the intake's tests.
var IntakeT0 = time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)

// IntakeApp is the application of the intake's tests.
func IntakeApp(db *DB, env domain.Environment) *App {
	return IntakeAppTraced(db, env, noop.NewTracerProvider().Tracer("test"))
}

func IntakeAppTraced(db *DB, env domain.Environment, tracer trace.Tracer) *App {
	return NewApp(db, env, &Clock{At: IntakeT0}, tracer)
}

// IntakeOrg is the intake tests' organization.
const IntakeOrg = "org_intake"

// IntakeOrder is the storefront order id with lines.
func IntakeOrder(id int64, lines ...intake.StorefrontLine) intake.StorefrontOrder {
	n := int64(1042)
	return intake.StorefrontOrder{
		ID: id, OrderNumber: &n, Note: "Bitte klingeln 🙏",
		ShippingAddress: &shipping.Address{Name: "Zoë Müller", Company: "", Address1: "Straße des 17. Juni 135",
			City: "Berlin", Zip: "10623", Country: "DE", Phone: "+49 30 1234567"},
		Lines: lines,
	}
}

// IntakeLine is a storefront line that requires shipping.
func IntakeLine(id int64, sku string, qty int64) intake.StorefrontLine {
	return intake.StorefrontLine{ID: id, SKU: sku, Quantity: qty, RequiresShipping: true}
}
