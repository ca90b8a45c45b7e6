package warehouse

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// ShipShipment is the warehouse's report that it handed a pending shipment
// to the carrier, with the carrier's tracking.
type ShipShipment struct {
	WarehouseID    string
	ShipmentID     string
	Carrier        string
	TrackingNumber string
}

// SpanAttributes implements Attributer.
func (c ShipShipment) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("warehouse.id", c.WarehouseID),
		attribute.String("shipment.id", c.ShipmentID),
	}
}

// ShipResult is the shipment as shipped and whether the ship was a replay
// of one that had shipped it already (nothing changed then).
type ShipResult struct {
	Shipment *shipping.Shipment
	Replay   bool
}

// ShipShipmentHandler ships shipments: pending → shipped, the reservation
// of each line turned into consumption of the warehouse's stock.
type ShipShipmentHandler struct {
	uow     ports.UnitOfWork[warehouseports.Repositories]
	clock   ports.Clock
	billing warehouseports.ReportBilling
}

// NewShipShipmentHandler builds the handler.
func NewShipShipmentHandler(uow ports.UnitOfWork[warehouseports.Repositories], clock ports.Clock, billing warehouseports.ReportBilling) *ShipShipmentHandler {
	return &ShipShipmentHandler{uow: uow, clock: clock, billing: billing}
}

// Handle ships the shipment in one transaction: the shipment locked (found
// at the command's warehouse: another warehouse's shipment is
// domain.ErrNotFound), the domain's transition, the stock consumed with
// its movements, the shipment stored, then its charges (billing's port)
// and its event (the outbox), one statement each. A bad tracking is
// refused before the transaction opens. The same ship again is a replay that changes nothing;
// a shipment in another state, or shipped with another tracking, is
// domain.ErrInvalidState; on hand short for any item is the stock
// ledger's *shipping.OnHandShortageError, and nothing changes.
func (h *ShipShipmentHandler) Handle(ctx context.Context, c ShipShipment) (ShipResult, error) {
	tracking, err := shipping.NewTracking(c.Carrier, c.TrackingNumber)
	if err != nil {
		return ShipResult{}, err
	}
	if !domain.ValidID(c.ShipmentID) {
		return ShipResult{}, domain.ErrNotFound
	}
	var res ShipResult
	err = h.uow.Do(ctx, func(ctx context.Context, r warehouseports.Repositories) error {
		shipped, err := r.Shipments.UpdateAtWarehouse(ctx, c.WarehouseID, c.ShipmentID, func(s *shipping.Shipment) error {
			var err error
			if res.Replay, err = s.Ship(h.clock.Now(), tracking); err != nil || res.Replay {
				return err
			}
			change, err := s.Consumption()
			if err != nil {
				return err
			}
			return r.Stock.Move(ctx, change)
		})
		res.Shipment = shipped
		if err != nil || res.Replay {
			return err
		}
		if err := h.billing.ChargeShipment(ctx, r, shipped); err != nil {
			return fmt.Errorf("charge shipment: %w", err)
		}
		// shipment.shipped, under the shipment's row lock (UpdateAtWarehouse).
		if err := r.Events.Record(ctx, shippingports.ShipmentEvent(eventsports.EventShipmentShipped, shipped, shipped.UpdatedAt())); err != nil {
			return fmt.Errorf("event of shipment: %w", err)
		}
		return nil
	})
	if err != nil {
		return ShipResult{}, err
	}
	return res, nil
}
