package application_test

// The fakes of the warehouse's side: receipts and services by (warehouse,
// reference), and the stock ledger on the fake's stock levels.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
)

type warehouseSideState struct {
	receipts  map[refKey]*warehouse.Receipt
	services  map[refKey]*warehouse.ServiceRecord
	movements []fakeMovement
}

type refKey struct{ warehouse, reference string }

type fakeMovement struct {
	org, warehouse string
	reason         shipping.MovementReason
	delta          shipping.StockDelta
	at             time.Time
}

func (s warehouseSideState) clone() warehouseSideState {
	s.receipts = maps.Clone(s.receipts)
	s.services = maps.Clone(s.services)
	s.movements = slices.Clone(s.movements)
	return s
}

func (db *fakeDB) movements() []fakeMovement {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Clone(db.state.wh.movements)
}

func (db *fakeDB) warehouseReceipts() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return len(db.state.wh.receipts)
}

func (db *fakeDB) warehouseServices() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return len(db.state.wh.services)
}

type fakeWarehouseReceipts struct{ fakeRepos }

var _ ports.WarehouseReceiptRepository = fakeWarehouseReceipts{}

func (r fakeWarehouseReceipts) Create(_ context.Context, rec *warehouse.Receipt) (*warehouse.Receipt, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	k := refKey{rec.WarehouseID(), rec.Reference()}
	if stored, ok := r.state.wh.receipts[k]; ok {
		return stored, false, nil
	}
	if r.state.wh.receipts == nil {
		r.state.wh.receipts = map[refKey]*warehouse.Receipt{}
	}
	r.state.wh.receipts[k] = rec
	return rec, true, nil
}

type fakeWarehouseServices struct{ fakeRepos }

var _ ports.WarehouseServiceRepository = fakeWarehouseServices{}

func (r fakeWarehouseServices) Create(_ context.Context, s *warehouse.ServiceRecord) (*warehouse.ServiceRecord, bool, error) {
	end, err := r.begin()
	if err != nil {
		return nil, false, err
	}
	defer end()
	k := refKey{s.WarehouseID(), s.Reference()}
	if stored, ok := r.state.wh.services[k]; ok {
		return stored, false, nil
	}
	if r.state.wh.services == nil {
		r.state.wh.services = map[refKey]*warehouse.ServiceRecord{}
	}
	r.state.wh.services[k] = s
	return s, true, nil
}

type fakeStockLedger struct{ fakeRepos }

var _ ports.StockLedger = fakeStockLedger{}

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
			if on := r.state.stock[stockKey{c.WarehouseID, d.ItemID}].onHand; on+q < 0 {
				short = append(short, shipping.StockShortage{ItemID: d.ItemID, Requested: -q, Available: on})
			}
		}
	}
	if len(short) > 0 {
		return &shipping.OnHandShortageError{Kind: c.Deltas[0].Kind, Items: short}
	}
	for _, d := range c.Deltas {
		k := stockKey{c.WarehouseID, d.ItemID}
		l := r.state.stock[k]
		l.onHand += d.Quantity
		if c.ConsumesReserved {
			l.reserved = max(l.reserved+min(d.Quantity, 0), 0)
		}
		r.state.stock[k] = l
		r.state.wh.movements = append(r.state.wh.movements, fakeMovement{
			org: c.OrganizationID, warehouse: c.WarehouseID, reason: c.Reason, delta: d, at: c.OccurredAt})
	}
	return nil
}

func (r fakeStockLedger) OnHandAt(_ context.Context, org string, at time.Time) ([]shipping.OnHand, error) {
	end, err := r.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	sums := map[shipping.OnHand]int64{}
	for _, m := range r.state.wh.movements {
		if m.org == org && m.at.Before(at) {
			sums[shipping.OnHand{WarehouseID: m.warehouse, Kind: m.delta.Kind, ItemID: m.delta.ItemID}] += m.delta.Quantity
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

// fakeBilling is billing's part of the warehouse's reports
// (ports.ReportBilling) as a test sets it: a nil function accepts every
// service, closes no period and charges nothing.
type fakeBilling struct {
	ServiceOffered  func(ctx context.Context, r ports.Repositories, organizationID, code string, at time.Time) (bool, error)
	PeriodClosed    func(ctx context.Context, r ports.Repositories, organizationID string, at time.Time) (bool, error)
	ReceiptCharges  func(ctx context.Context, r ports.Repositories, receipt *warehouse.Receipt) error
	ServiceCharges  func(ctx context.Context, r ports.Repositories, service *warehouse.ServiceRecord) error
	ShipmentCharges func(ctx context.Context, r ports.Repositories, shipped *shipping.Shipment) error
}

var _ ports.ReportBilling = fakeBilling{}

func (b fakeBilling) CheckServiceOffered(ctx context.Context, r ports.Repositories, org, code string, at time.Time) error {
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

func (b fakeBilling) CheckPeriodOpen(ctx context.Context, r ports.Repositories, org string, at time.Time) error {
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

func (b fakeBilling) ChargeReceipt(ctx context.Context, r ports.Repositories, receipt *warehouse.Receipt) error {
	if b.ReceiptCharges == nil {
		return nil
	}
	return b.ReceiptCharges(ctx, r, receipt)
}

func (b fakeBilling) ChargeService(ctx context.Context, r ports.Repositories, service *warehouse.ServiceRecord) error {
	if b.ServiceCharges == nil {
		return nil
	}
	return b.ServiceCharges(ctx, r, service)
}

func (b fakeBilling) ChargeShipment(ctx context.Context, r ports.Repositories, shipped *shipping.Shipment) error {
	if b.ShipmentCharges == nil {
		return nil
	}
	return b.ShipmentCharges(ctx, r, shipped)
}
