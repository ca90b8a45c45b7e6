package shipping

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// ShipmentCommandHandler is the handler of a command on one shipment of an
// organization (SubmitShipment, CancelShipment). Handle changes it in one
// transaction: change runs on the shipment locked by
// ShipmentRepository.Update, which stores its new state unless change
// fails; then the event, when there is one, is recorded of the changed
// shipment under the same lock. It returns the shipment as changed. One
// that does not exist or belongs to another organization is
// domain.ErrNotFound (an ID of a shape no shipment has, without asking the
// database).
type ShipmentCommandHandler struct {
	uow    ports.UnitOfWork[shippingports.Repositories]
	clock  ports.Clock
	change func(ctx context.Context, r shippingports.Repositories, s *shipping.Shipment, now time.Time) error
	event  eventsports.EventType // "" records none
}

// Handle runs the command.
func (h *ShipmentCommandHandler) Handle(ctx context.Context, c ShipmentRef) (*shipping.Shipment, error) {
	if !domain.ValidID(c.ShipmentID) {
		return nil, domain.ErrNotFound
	}
	now := h.clock.Now()
	var changed *shipping.Shipment
	err := h.uow.Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		var err error
		changed, err = h.apply(ctx, r, c, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// apply changes the shipment in r's transaction and records its event.
func (h *ShipmentCommandHandler) apply(ctx context.Context, r shippingports.Repositories, c ShipmentRef, now time.Time) (*shipping.Shipment, error) {
	changed, err := r.Shipments.Update(ctx, c.OrganizationID, c.ShipmentID, func(s *shipping.Shipment) error {
		return h.change(ctx, r, s, now)
	})
	if err != nil || h.event == "" {
		return changed, err
	}
	// Update holds the shipment's row lock: its events are in commit order.
	return changed, r.Events.Record(ctx, shippingports.ShipmentEvent(h.event, changed, now))
}
