package shipping

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// CancelShipment asks to cancel a draft or pending shipment. It is also how
// a shipment whose storefront order was cancelled is cancelled (the
// storefront's order-cancelled webhook is not handled).
type CancelShipment struct {
	OrganizationID string
	ShipmentID     string
}

// SpanAttributes implements Attributer.
func (c CancelShipment) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("organization.id", c.OrganizationID),
		attribute.String("shipment.id", c.ShipmentID),
	}
}

// CancelShipmentHandler cancels shipments: draft or pending → cancelled,
// releasing what a pending one reserved.
type CancelShipmentHandler struct {
	uow   ports.UnitOfWork
	clock ports.Clock
}

// NewCancelShipmentHandler builds the handler.
func NewCancelShipmentHandler(uow ports.UnitOfWork, clock ports.Clock) *CancelShipmentHandler {
	return &CancelShipmentHandler{uow: uow, clock: clock}
}

// Handle cancels the shipment in one transaction, with its
// shipment.cancelled event, and returns it as cancelled. A cancelled shipment is domain.ErrInvalidState; one that does
// not exist or belongs to another organization, domain.ErrNotFound.
func (h *CancelShipmentHandler) Handle(ctx context.Context, c CancelShipment) (*shipping.Shipment, error) {
	now := h.clock.Now()
	return updateShipment(ctx, h.uow, c.OrganizationID, c.ShipmentID,
		func(ctx context.Context, r ports.Repositories, s *shipping.Shipment) error {
			releases, err := s.Cancel(now)
			if err != nil || !releases {
				return err
			}
			return r.Inventory.Release(ctx, s.Warehouse().ID, s.Kind(), s.Lines())
		},
		// Update holds the shipment's row lock: its events are in commit order.
		func(ctx context.Context, r ports.Repositories, cancelled *shipping.Shipment) error {
			return r.Events.Record(ctx, ports.ShipmentEvent(ports.EventShipmentCancelled, cancelled, now))
		})
}
