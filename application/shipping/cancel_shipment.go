package shipping

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// CancelShipment asks to cancel a draft or pending shipment. It is also how
// a shipment whose storefront order was cancelled is cancelled (the
// storefront's order-cancelled webhook is not handled).
type CancelShipment struct {
	OrganizationID string
	ShipmentID     string
	// Operator is the 3PL's person who cancels it (the console): the
	// cancel is then an operator action with its audit record
	// (shipments.cancel). nil: the organization's own cancel through the
	// API, which records none.
	Operator *audit.Actor
}

// SpanAttributes implements Attributer.
func (c CancelShipment) SpanAttributes() []attribute.KeyValue {
	return ShipmentRef{OrganizationID: c.OrganizationID, ShipmentID: c.ShipmentID}.SpanAttributes()
}

// CancelShipmentHandler cancels shipments: draft or pending → cancelled,
// releasing what a pending one reserved, with the shipment.cancelled
// event. A cancelled shipment is domain.ErrInvalidState.
type CancelShipmentHandler struct {
	cmd   *ShipmentCommandHandler
	audit *application.Auditor[shippingports.Repositories]
}

// NewCancelShipmentHandler builds the handler.
func NewCancelShipmentHandler(uow ports.UnitOfWork[shippingports.Repositories], clock ports.Clock, ids ports.IDGenerator) *CancelShipmentHandler {
	return &CancelShipmentHandler{
		cmd:   &ShipmentCommandHandler{uow: uow, clock: clock, change: cancel, event: eventsports.EventShipmentCancelled},
		audit: application.NewAuditor(uow, clock, ids),
	}
}

// Handle cancels the shipment; an operator's cancel writes its audit
// record in the same transaction (done, or the refusal's code:
// not_found, invalid_state).
func (h *CancelShipmentHandler) Handle(ctx context.Context, c CancelShipment) (*shipping.Shipment, error) {
	ref := ShipmentRef{OrganizationID: c.OrganizationID, ShipmentID: c.ShipmentID}
	if c.Operator == nil {
		return h.cmd.Handle(ctx, ref)
	}
	var changed *shipping.Shipment
	op := application.Operation{Actor: *c.Operator, Action: audit.ShipmentsCancel, OrganizationID: c.OrganizationID,
		Input: map[string]string{"organizationId": c.OrganizationID, "shipmentId": c.ShipmentID}}
	err := h.audit.Do(ctx, op, func(ctx context.Context, r shippingports.Repositories, _ *audit.Record) error {
		if !domain.ValidID(c.ShipmentID) {
			return domain.ErrNotFound
		}
		var err error
		changed, err = h.cmd.apply(ctx, r, ref, h.cmd.clock.Now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// cancel is the change: the transition, and the release of what a pending
// shipment reserved.
func cancel(ctx context.Context, r shippingports.Repositories, s *shipping.Shipment, now time.Time) error {
	releases, err := s.Cancel(now)
	if err != nil || !releases {
		return err
	}
	return r.Inventory.Release(ctx, s.Warehouse().ID, s.Kind(), s.Lines())
}
