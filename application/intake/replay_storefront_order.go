package intake

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// ReplayStorefrontOrder runs the kept body of a failed order through the
// intake again, as a new delivery of the organization would run.
type ReplayStorefrontOrder struct {
	OrganizationID string
	OrderID        int64
	TraceID        string // of the replay: the receipt keeps it, as a delivery's
}

// SpanAttributes implements Attributer.
func (c ReplayStorefrontOrder) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID, attribute.Int64("storefront.order.id", c.OrderID))
}

// ReplayedTraceKey is the attribute of a replay's span, and of its link,
// that names the trace of the failed delivery it replays.
const ReplayedTraceKey = attribute.Key("fulfillment.replay.failed_trace_id")

// ReplayStorefrontOrderHandler replays failed orders.
//
// The replay is a delivery like the storefront's: the kept body is decoded
// as the storefront route decodes it (intake.DecodeStorefrontOrder) and
// handed to the intake's own use case, which claims the receipt row, so that exactly-once is the intake's — a replay
// racing a redelivery, another replay or another replica makes at most one
// shipment, and whoever comes second answers duplicate. The replay counts
// as an attempt and its trace becomes the receipt's; its span links to the
// trace of the failed delivery before it.
type ReplayStorefrontOrderHandler struct {
	receipts intakeports.OrderReceiptRepository // on the pool
	intake   application.Handler[ReceiveStorefrontOrder, StorefrontOrderResult]
	refuse   application.Handler[RefuseStorefrontOrder, struct{}]
}

// NewReplayStorefrontOrderHandler builds the handler.
func NewReplayStorefrontOrderHandler(receipts intakeports.OrderReceiptRepository,
	intake application.Handler[ReceiveStorefrontOrder, StorefrontOrderResult], refuse application.Handler[RefuseStorefrontOrder, struct{}],
) *ReplayStorefrontOrderHandler {
	return &ReplayStorefrontOrderHandler{receipts: receipts, intake: intake, refuse: refuse}
}

// Handle replays the order: domain.ErrNotFound when the organization has
// no receipt of it; the receipt's answer (duplicate) when it has succeeded;
// intake.ErrPayloadNotKept when it has failed and its body is gone;
// otherwise the intake's answer to the kept body.
func (h *ReplayStorefrontOrderHandler) Handle(ctx context.Context, c ReplayStorefrontOrder) (StorefrontOrderResult, error) {
	rec, body, err := h.receipts.GetWithPayload(ctx, c.OrganizationID, c.OrderID)
	if err != nil {
		return StorefrontOrderResult{}, err
	}
	if rec.Duplicate() {
		setIntakeOutcome(ctx, StorefrontOrderResult{Duplicate: true}, nil)
		return StorefrontOrderResult{ShipmentID: rec.ShipmentID(), Skipped: rec.Skipped(), Duplicate: true}, nil
	}
	if body == nil {
		return StorefrontOrderResult{}, fmt.Errorf("replay order %d: %w", c.OrderID, intake.ErrPayloadNotKept)
	}
	linkFailedDelivery(ctx, rec.TraceID())
	order, refused := intake.DecodeStorefrontOrder(body)
	if refused != nil {
		// Refused as a delivery of these bytes is: recorded when its ID
		// could be read.
		if order.ID > 0 {
			_, _ = h.refuse.Handle(ctx, RefuseStorefrontOrder{
				OrganizationID: c.OrganizationID, TraceID: c.TraceID, OrderID: order.ID, OrderNumber: order.OrderNumber, Body: body,
			})
		}
		return StorefrontOrderResult{}, refused
	}
	if order.ID != c.OrderID {
		// The same decoder read this ID from these bytes when it kept them;
		// a decoder that reads another now must not touch another order.
		return StorefrontOrderResult{}, domain.Invalid("id", "is %d in the kept body of order %d", order.ID, c.OrderID)
	}
	return h.intake.Handle(ctx, ReceiveStorefrontOrder{
		OrganizationID: c.OrganizationID, TraceID: c.TraceID, Order: order, Body: body,
	})
}

// linkFailedDelivery links the replay's span to the trace of the delivery
// that failed last. A receipt keeps the trace ID only, not the span's, so
// the link names the trace; the attribute says so for backends that drop
// a link without a span ID.
func linkFailedDelivery(ctx context.Context, traceID string) {
	tid, err := trace.TraceIDFromHex(traceID)
	if err != nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(ReplayedTraceKey.String(traceID))
	span.AddLink(trace.Link{
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, Remote: true}),
		Attributes:  []attribute.KeyValue{ReplayedTraceKey.String(traceID)},
	})
}
