package intake

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// RefuseStorefrontOrder is a delivery of the order-creation webhook refused
// before processing — its body could not be read as an order, or the order
// failed intake.StorefrontOrder.Check (answered 400 invalid_payload) — whose
// order ID could be read: the attempt is recorded as failed, its body kept
// for a replay.
type RefuseStorefrontOrder struct {
	OrganizationID string
	TraceID        string // X-Trace-Id of this delivery, kept on the receipt
	OrderID        int64  // as read from the body
	OrderNumber    *int64 // nil when it could not be read
	Body           []byte // as received
}

// SpanAttributes implements Attributer.
func (c RefuseStorefrontOrder) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID, attribute.Int64("storefront.order.id", c.OrderID))
}

// RefuseStorefrontOrderHandler records refused deliveries.
type RefuseStorefrontOrderHandler struct {
	uow   ports.UnitOfWork[intakeports.Repositories] // records the failure in a transaction of its own, with its event
	clock ports.Clock
	log   *slog.Logger
}

// NewRefuseStorefrontOrderHandler builds the handler.
func NewRefuseStorefrontOrderHandler(uow ports.UnitOfWork[intakeports.Repositories], clock ports.Clock, log *slog.Logger) *RefuseStorefrontOrderHandler {
	return &RefuseStorefrontOrderHandler{uow: uow, clock: clock, log: log}
}

// Handle records the attempt as failed with invalid_payload (best effort,
// as every failed attempt: see recordFailure) — unless the order ID is not
// one (intake.CheckStorefrontOrderID), which is returned: nothing to key a
// record on. A receipt that has succeeded is left as it is.
func (h *RefuseStorefrontOrderHandler) Handle(ctx context.Context, c RefuseStorefrontOrder) (struct{}, error) {
	if err := intake.CheckStorefrontOrderID(c.OrderID); err != nil {
		return struct{}{}, err
	}
	trace.SpanFromContext(ctx).SetAttributes(IntakeOutcomeKey.String("refused"))
	recordFailure(ctx, h.uow, h.log, intake.OrderDelivery{
		OrganizationID: c.OrganizationID, OrderID: c.OrderID, OrderNumber: c.OrderNumber,
		TraceID: c.TraceID, ReceivedAt: h.clock.Now(), Payload: c.Body,
	}, domain.KindInvalid.Code())
	return struct{}{}, nil
}
