package application

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// SubmitShipment asks to move a draft to pending.
type SubmitShipment struct {
	OrganizationID string
	ShipmentID     string
}

// CancelShipment asks to cancel a draft or pending shipment. It is also how
// a shipment whose storefront order was cancelled is cancelled (SPEC.md,
// limitation 3: the order-cancelled webhook is not handled).
type CancelShipment struct {
	OrganizationID string
	ShipmentID     string
}

// SpanAttributes implements Attributer.
func (c SubmitShipment) SpanAttributes() []attribute.KeyValue {
	return shipmentAttributes(c.OrganizationID, c.ShipmentID)
}

// SpanAttributes implements Attributer.
func (c CancelShipment) SpanAttributes() []attribute.KeyValue {
	return shipmentAttributes(c.OrganizationID, c.ShipmentID)
}

func shipmentAttributes(org, id string) []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("organization.id", org), attribute.String("shipment.id", id)}
}

func (c SubmitShipment) target() (org, id string) { return c.OrganizationID, c.ShipmentID }
func (c CancelShipment) target() (org, id string) { return c.OrganizationID, c.ShipmentID }

// shipmentCommand is a command on one stored shipment.
type shipmentCommand interface {
	SubmitShipment | CancelShipment
	target() (org, id string)
}

// ChangeShipmentHandler locks one shipment and changes its state in one
// transaction: submit (draft → pending, reserving its lines; SPD cartons are
// checked under the stock rows' locks, and when any is short the error is a
// *domain.InsufficientStockError and nothing changes) or cancel (draft or
// pending → cancelled, releasing what a pending one reserved). A transition
// the state does not allow is domain.ErrInvalidState.
type ChangeShipmentHandler[C shipmentCommand] struct {
	uow    ports.UnitOfWork
	clock  ports.Clock
	change func(ctx context.Context, r ports.Repositories, s *domain.Shipment, now time.Time) error
}

// SubmitShipmentHandler submits drafts.
type SubmitShipmentHandler = ChangeShipmentHandler[SubmitShipment]

// CancelShipmentHandler cancels shipments.
type CancelShipmentHandler = ChangeShipmentHandler[CancelShipment]

// NewSubmitShipmentHandler builds the submit handler.
func NewSubmitShipmentHandler(uow ports.UnitOfWork, clock ports.Clock) *SubmitShipmentHandler {
	return &SubmitShipmentHandler{uow: uow, clock: clock, change: submitStored}
}

// NewCancelShipmentHandler builds the cancel handler.
func NewCancelShipmentHandler(uow ports.UnitOfWork, clock ports.Clock) *CancelShipmentHandler {
	return &CancelShipmentHandler{uow: uow, clock: clock, change: cancelStored}
}

// Handle applies the change and returns the shipment as it is after it.
func (h *ChangeShipmentHandler[C]) Handle(ctx context.Context, c C) (*domain.Shipment, error) {
	org, id := c.target()
	if !domain.ValidID(id) {
		return nil, domain.ErrNotFound
	}
	var out *domain.Shipment
	err := h.uow.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		s, err := r.Shipments.GetForUpdate(ctx, org, id)
		if err != nil {
			return err
		}
		if err := h.change(ctx, r, s, h.clock.Now()); err != nil {
			return err
		}
		out = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
