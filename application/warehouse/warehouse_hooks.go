package warehouse

import (
	"context"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
)

// WarehouseHooks are what the warehouse's reports (receipts, services, ships) need
// from the contexts that own them: billing's rate cards, periods and
// charges, and the events' outbox. Each runs inside the report's
// transaction, with that transaction's repositories, so that what it writes
// commits with the report or not at all. A nil hook is skipped: every
// service code is accepted, no period is closed, nothing is charged, no
// event is written.
type WarehouseHooks struct {
	// ServiceOffered tells whether code is a service of the organization's
	// rate card in force at at (else 422 unknown_service).
	ServiceOffered func(ctx context.Context, r ports.Repositories, organizationID, code string, at time.Time) (bool, error)
	// PeriodClosed tells whether at lies inside a billing period of the
	// organization that is closed (else 422 period_closed).
	PeriodClosed func(ctx context.Context, r ports.Repositories, organizationID string, at time.Time) (bool, error)
	// ReceiptCharges and ServiceCharges accrue a new report's charges (one
	// statement); they never run for a retry.
	ReceiptCharges func(ctx context.Context, r ports.Repositories, receipt *warehouse.Receipt) error
	ServiceCharges func(ctx context.Context, r ports.Repositories, service *warehouse.ServiceRecord) error
	// ReceiptEvent and ServiceEvent write a new report's event to the
	// outbox (one statement); they never run for a retry.
	ReceiptEvent func(ctx context.Context, r ports.Repositories, receipt *warehouse.Receipt) error
	ServiceEvent func(ctx context.Context, r ports.Repositories, service *warehouse.ServiceRecord) error
	// ShipmentCharges accrues a shipment's charges when it is shipped (one
	// statement); ShipmentEvent writes its shipment.shipped event to the
	// outbox (one statement). Neither runs for a replayed ship.
	ShipmentCharges func(ctx context.Context, r ports.Repositories, shipped *shipping.Shipment) error
	ShipmentEvent   func(ctx context.Context, r ports.Repositories, shipped *shipping.Shipment) error
}

// checkPeriodOpen refuses a fact dated inside a closed period.
func (h WarehouseHooks) checkPeriodOpen(ctx context.Context, r ports.Repositories, org string, at time.Time) error {
	if h.PeriodClosed == nil {
		return nil
	}
	closed, err := h.PeriodClosed(ctx, r, org, at)
	if err != nil {
		return fmt.Errorf("billing period of %s: %w", at.Format(time.RFC3339), err)
	}
	if closed {
		return fmt.Errorf("%s lies in a closed period of %s: %w", at.Format(time.RFC3339), org, warehouse.ErrPeriodClosed)
	}
	return nil
}

// checkServiceOffered refuses a service code the rate card does not hold.
func (h WarehouseHooks) checkServiceOffered(ctx context.Context, r ports.Repositories, org, code string, at time.Time) error {
	if h.ServiceOffered == nil {
		return nil
	}
	ok, err := h.ServiceOffered(ctx, r, org, code, at)
	if err != nil {
		return fmt.Errorf("rate card of %s: %w", org, err)
	}
	if !ok {
		return fmt.Errorf("service %q of %s at %s: %w", code, org, at.Format(time.RFC3339), warehouse.ErrUnknownService)
	}
	return nil
}

// run calls a nil-safe hook of a new report.
func run[T any](ctx context.Context, hook func(context.Context, ports.Repositories, T) error, r ports.Repositories, v T, what string) error {
	if hook == nil {
		return nil
	}
	if err := hook(ctx, r, v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
