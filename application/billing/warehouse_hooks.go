package billing

import (
	"context"
	"errors"
	"time"

	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
)

// WarehouseHooks are billing's part of the warehouse's reports, run in the
// report's transaction: a service must be a code of the rate card in force
// when it was performed, a receipt or service may not be dated into a
// closed period (its open period is then held FOR SHARE until the report
// commits, so a finalization waits for it), and a new report's charges —
// a receipt's, a service's, a shipped shipment's — accrue in one statement. The events' hooks are left as they are.
func WarehouseHooks(d Deps, events warehouseapp.WarehouseHooks) warehouseapp.WarehouseHooks {
	h := events
	h.ServiceOffered = func(ctx context.Context, r ports.Repositories, organizationID, code string, at time.Time) (bool, error) {
		_, err := r.RateCards.Service(ctx, organizationID, code, at)
		if errors.Is(err, domain.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	h.PeriodClosed = func(ctx context.Context, r ports.Repositories, organizationID string, at time.Time) (bool, error) {
		return r.BillingPeriods.PeriodClosed(ctx, organizationID, at)
	}
	h.ReceiptCharges = func(ctx context.Context, r ports.Repositories, receipt *warehouse.Receipt) error {
		fees, err := r.Charges.AccrueReceipt(ctx, receipt.ID())
		d.observeCharges(fees)
		return err
	}
	h.ServiceCharges = func(ctx context.Context, r ports.Repositories, service *warehouse.ServiceRecord) error {
		fees, err := r.Charges.AccrueService(ctx, service.ID())
		d.observeCharges(fees)
		return err
	}
	h.ShipmentCharges = func(ctx context.Context, r ports.Repositories, shipped *shipping.Shipment) error {
		fees, err := r.Charges.AccrueShipment(ctx, shipped.ID())
		d.observeCharges(fees)
		return err
	}
	return h
}
