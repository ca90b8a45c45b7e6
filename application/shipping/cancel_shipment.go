package shipping

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// CancelShipment asks to cancel a draft or pending shipment. It is also how
// a shipment whose storefront order was cancelled is cancelled (the
// storefront's order-cancelled webhook is not handled).
type CancelShipment = ShipmentRef

// CancelShipmentHandler cancels shipments: draft or pending → cancelled,
// releasing what a pending one reserved, with the shipment.cancelled
// event. A cancelled shipment is domain.ErrInvalidState.
type CancelShipmentHandler = ShipmentCommandHandler

// NewCancelShipmentHandler builds the handler.
func NewCancelShipmentHandler(uow ports.UnitOfWork, clock ports.Clock) *CancelShipmentHandler {
	return &CancelShipmentHandler{uow: uow, clock: clock, change: cancel, event: ports.EventShipmentCancelled}
}

// cancel is the change: the transition, and the release of what a pending
// shipment reserved.
func cancel(ctx context.Context, r ports.Repositories, s *shipping.Shipment, now time.Time) error {
	releases, err := s.Cancel(now)
	if err != nil || !releases {
		return err
	}
	return r.Inventory.Release(ctx, s.Warehouse().ID, s.Kind(), s.Lines())
}
