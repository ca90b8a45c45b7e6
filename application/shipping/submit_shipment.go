package shipping

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// SubmitShipment asks to move a draft to pending.
type SubmitShipment = ShipmentRef

// SubmitShipmentHandler submits drafts: draft → pending, reserving the
// shipment's lines at its warehouse. SPD cartons are checked under the
// stock rows' locks, and when any is short the error is a
// *shipping.InsufficientStockError and nothing changes; Pick & Pack products
// are reserved without a check. A shipment that is not a draft is
// domain.ErrInvalidState.
type SubmitShipmentHandler = ShipmentCommandHandler

// NewSubmitShipmentHandler builds the handler.
func NewSubmitShipmentHandler(uow ports.UnitOfWork[shippingports.Repositories], clock ports.Clock) *SubmitShipmentHandler {
	return &SubmitShipmentHandler{uow: uow, clock: clock, change: submit}
}

// submit is the change: the transition, and the reservation of the lines.
func submit(ctx context.Context, r shippingports.Repositories, s *shipping.Shipment, now time.Time) error {
	if err := s.Submit(now); err != nil {
		return err
	}
	return r.Inventory.Reserve(ctx, s.OrganizationID(), s.Warehouse().ID, s.Kind(), s.Lines())
}
