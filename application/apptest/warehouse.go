package apptest

// The fakes of the warehouse's side: receipts and services by (warehouse,
// reference), the stock ledger on the fake's stock levels, and billing's
// part of the warehouse's reports.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

type warehouseSideState struct {
	Receipts  map[refKey]*warehouse.Receipt
	Services  map[refKey]*warehouse.ServiceRecord
	Movements []Movement
}

type refKey struct{ warehouse, reference string }

type Movement struct {
	Org, Warehouse string
	Reason         shipping.MovementReason
	Delta          shipping.StockDelta
	At             time.Time
}

func (s warehouseSideState) clone() warehouseSideState {
	s.Receipts = maps.Clone(s.Receipts)
	s.Services = maps.Clone(s.Services)
	s.Movements = slices.Clone(s.Movements)
	return s
}

func (db *DB) Movements() []Movement {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Clone(db.State.wh.Movements)
}

func (db *DB) WarehouseReceipts() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return len(db.State.wh.Receipts)
}

func (db *DB) WarehouseServices() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return len(db.State.wh.Services)
}

type fakeWarehouseReceipts struct{ fakeRepos }

var _ warehouseports.ReceiptRepository = fakeWarehouseReceipts{}

func (r fakeWarehouseReceipts) Create(_ context.Context, rec *warehouse.Receipt) (*warehouse.Receipt, bool, error) {
	return createReport(r.fakeRepos, &r.State.wh.Receipts, rec)
}

// Redate moves the receipt's movements from was to its time (the stored
// receipt is the report itself).
func (r fakeWarehouseReceipts) Redate(_ context.Context, rec *warehouse.Receipt, was time.Time) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	for i, m := range r.State.wh.Movements {
		if m.Reason == shipping.MovementReceipt && m.At.Equal(was) && m.Org == rec.OrganizationID() {
			r.State.wh.Movements[i].At = rec.ReceivedAt()
		}
	}
	return nil
}

type fakeWarehouseServices struct{ fakeRepos }

// Redate has nothing to write: the stored service is the report itself.
func (r fakeWarehouseServices) Redate(context.Context, *warehouse.ServiceRecord) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	end()
	return nil
}

var _ warehouseports.ServiceRepository = fakeWarehouseServices{}

func (r fakeWarehouseServices) Create(_ context.Context, s *warehouse.ServiceRecord) (*warehouse.ServiceRecord, bool, error) {
	return createReport(r.fakeRepos, &r.State.wh.Services, s)
}

// createReport stores a warehouse's report under its (warehouse,
// reference) unless one is stored there: then it answers the stored one,
// not created.
func createReport[T interface {
	WarehouseID() string
	Reference() string
}](r fakeRepos, stored *map[refKey]T, report T) (T, bool, error) {
	end, err := r.begin()
	if err != nil {
		var none T
		return none, false, err
	}
	defer end()
	k := refKey{report.WarehouseID(), report.Reference()}
	if first, ok := (*stored)[k]; ok {
		return first, false, nil
	}
	if *stored == nil {
		*stored = map[refKey]T{}
	}
	(*stored)[k] = report
	return report, true, nil
}

type fakeStockLedger struct{ fakeRepos }

var _ shippingports.StockLedger = fakeStockLedger{}

func (r fakeStockLedger) Move(_ context.Context, c shipping.StockChange) error {
	end, err := r.begin()
	if err != nil {
		return err
	}
	defer end()
	sums := map[string]int64{}
	for _, d := range c.Deltas {
		sums[d.ItemID] += d.Quantity
	}
	var short []shipping.StockShortage
	for _, d := range c.Deltas {
		if q, ok := sums[d.ItemID]; ok {
			delete(sums, d.ItemID)
			if on := r.State.Stock[stockKey{c.WarehouseID, d.ItemID}].OnHand; on+q < 0 {
				short = append(short, shipping.StockShortage{ItemID: d.ItemID, Requested: -q, Available: on})
			}
		}
	}
	if len(short) > 0 {
		return &shipping.OnHandShortageError{Kind: c.Deltas[0].Kind, Items: short}
	}
	for _, d := range c.Deltas {
		k := stockKey{c.WarehouseID, d.ItemID}
		l := r.State.Stock[k]
		l.OnHand += d.Quantity
		if c.ConsumesReserved {
			l.Reserved = max(l.Reserved+min(d.Quantity, 0), 0)
		}
		r.State.Stock[k] = l
		r.State.wh.Movements = append(r.State.wh.Movements, Movement{
			Org: c.OrganizationID, Warehouse: c.WarehouseID, Reason: c.Reason, Delta: d, At: c.OccurredAt})
	}
	return nil
}

func (r fakeStockLedger) Movements(context.Context, shippingports.StockMovementQuery, ports.Page) ([]shippingports.StockMovement, bool, error) {
	return nil, false, nil // the in-memory ledger keeps balances only
}

func (r fakeStockLedger) OnHandAt(_ context.Context, org string, at time.Time) ([]shipping.OnHand, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	sums := map[shipping.OnHand]int64{}
	for _, m := range r.State.wh.Movements {
		if m.Org == org && m.At.Before(at) {
			sums[shipping.OnHand{WarehouseID: m.Warehouse, Kind: m.Delta.Kind, ItemID: m.Delta.ItemID}] += m.Delta.Quantity
		}
	}
	var out []shipping.OnHand
	for k, q := range sums {
		if q != 0 {
			k.Quantity = q
			out = append(out, k)
		}
	}
	return out, nil
}

// Billing is billing's part of the warehouse's reports
// (warehouseports.ReportBilling) as a test sets it: a nil function accepts every
// service, closes no period and charges nothing.
type Billing struct {
	ServiceOffered  func(ctx context.Context, r warehouseports.Repositories, organizationID, code string, at time.Time) (bool, error)
	PeriodClosed    func(ctx context.Context, r warehouseports.Repositories, organizationID string, at time.Time) (bool, error)
	ReceiptCharges  func(ctx context.Context, r warehouseports.Repositories, receipt *warehouse.Receipt) error
	ServiceCharges  func(ctx context.Context, r warehouseports.Repositories, service *warehouse.ServiceRecord) error
	ShipmentCharges func(ctx context.Context, r warehouseports.Repositories, shipped *shipping.Shipment) error
}

var _ warehouseports.ReportBilling = Billing{}

func (b Billing) CheckServiceOffered(ctx context.Context, r warehouseports.Repositories, org, code string, at time.Time) error {
	if b.ServiceOffered == nil {
		return nil
	}
	ok, err := b.ServiceOffered(ctx, r, org, code, at)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("service %q: %w", code, warehouse.ErrUnknownService)
	}
	return nil
}

func (b Billing) CheckPeriodOpen(ctx context.Context, r warehouseports.Repositories, org string, at time.Time) error {
	if b.PeriodClosed == nil {
		return nil
	}
	closed, err := b.PeriodClosed(ctx, r, org, at)
	if err != nil {
		return err
	}
	if closed {
		return fmt.Errorf("%s: %w", at, warehouse.ErrPeriodClosed)
	}
	return nil
}

func (b Billing) ChargeReceipt(ctx context.Context, r warehouseports.Repositories, receipt *warehouse.Receipt) error {
	if b.ReceiptCharges == nil {
		return nil
	}
	return b.ReceiptCharges(ctx, r, receipt)
}

func (b Billing) ChargeService(ctx context.Context, r warehouseports.Repositories, service *warehouse.ServiceRecord) error {
	if b.ServiceCharges == nil {
		return nil
	}
	return b.ServiceCharges(ctx, r, service)
}

func (b Billing) ChargeShipment(ctx context.Context, r warehouseports.Repositories, shipped *shipping.Shipment) error {
	if b.ShipmentCharges == nil {
		return nil
	}
	return b.ShipmentCharges(ctx, r, shipped)
}
