package shipping

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// SubmitShipment asks to move a draft to pending.
type SubmitShipment struct {
	OrganizationID string
	ShipmentID     string
}

// SpanAttributes implements Attributer.
func (c SubmitShipment) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("organization.id", c.OrganizationID),
		attribute.String("shipment.id", c.ShipmentID),
	}
}

// SubmitShipmentHandler submits drafts: draft → pending, reserving the
// shipment's lines at its warehouse. SPD cartons are checked under the
// stock rows' locks, and when any is short the error is a
// *shipping.InsufficientStockError and nothing changes; Pick & Pack products
// are reserved without a check.
type SubmitShipmentHandler struct {
	uow   ports.UnitOfWork
	clock ports.Clock
}

// NewSubmitShipmentHandler builds the handler.
func NewSubmitShipmentHandler(uow ports.UnitOfWork, clock ports.Clock) *SubmitShipmentHandler {
	return &SubmitShipmentHandler{uow: uow, clock: clock}
}

// Handle submits the shipment in one transaction and returns it as
// submitted. A shipment that is not a draft is domain.ErrInvalidState; one
// that does not exist or belongs to another organization,
// domain.ErrNotFound.
func (h *SubmitShipmentHandler) Handle(ctx context.Context, c SubmitShipment) (*shipping.Shipment, error) {
	return updateShipment(ctx, h.uow, c.OrganizationID, c.ShipmentID,
		func(ctx context.Context, r ports.Repositories, s *shipping.Shipment) error {
			if err := s.Submit(h.clock.Now()); err != nil {
				return err
			}
			return r.Inventory.Reserve(ctx, s.OrganizationID(), s.Warehouse().ID, s.Kind(), s.Lines())
		}, nil)
}
