package intake

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// ReceiveStorefrontOrder is one delivery of the order-creation webhook,
// its order read and checked (intake.StorefrontOrder.Check). A delivery
// whose order cannot be read or is refused by the check is
// RefuseStorefrontOrder.
type ReceiveStorefrontOrder struct {
	OrganizationID string
	TraceID        string // X-Trace-Id of this delivery, kept on the receipt
	Order          intake.StorefrontOrder
	// Body is the delivery's body as received: kept with the receipt when
	// the delivery is recorded as failed, so that the order can be
	// replayed (ReplayStorefrontOrder).
	Body []byte
}

// SpanAttributes implements Attributer.
func (c ReceiveStorefrontOrder) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID, attribute.Int64("storefront.order.id", c.Order.ID))
}

// StorefrontOrderResult is the answer to a delivery.
type StorefrontOrderResult struct {
	ShipmentID string            // "" when the order was skipped
	Skipped    intake.SkipReason // "" unless the order was skipped
	Duplicate  bool              // the order had been processed successfully before
}

// ReceiveStorefrontOrderHandler turns a storefront order into a submitted
// Pick & Pack shipment, exactly once per organization and order id.
//
// Exactly-once is a fact of the database, not of this process: the first
// statement of the transaction claims (inserts or locks) the order's
// receipt row, so concurrent deliveries of one order — to any replica —
// queue on that row lock. The shipment, its items, its reservation and the
// success record commit together; whoever comes next sees the receipt
// succeeded and answers duplicate with the same shipment.
//
// The order has been checked (intake.StorefrontOrder.Check: its ID, text,
// quantities) before it comes here; a payload refused before processing is
// recorded by RefuseStorefrontOrderHandler.
//
// A refused attempt (unknown SKUs, no warehouse, ...) is recorded as failed
// in the same transaction, which then commits without a shipment; the next
// delivery is processed from scratch. An attempt whose transaction fails
// (the database is gone) is rolled back and recorded by a separate
// statement when the database allows.
type ReceiveStorefrontOrderHandler struct {
	uow   ports.UnitOfWork[intakeports.Repositories]
	clock ports.Clock
	ids   ports.IDGenerator
	env   domain.Environment
	log   *slog.Logger
}

// NewReceiveStorefrontOrderHandler builds the handler. Shipments are test
// shipments unless env is production.
func NewReceiveStorefrontOrderHandler(uow ports.UnitOfWork[intakeports.Repositories], clock ports.Clock, ids ports.IDGenerator,
	env domain.Environment, log *slog.Logger,
) *ReceiveStorefrontOrderHandler {
	return &ReceiveStorefrontOrderHandler{uow: uow, clock: clock, ids: ids, env: env, log: log}
}

// recordBudget bounds the separate statement that records an attempt whose
// transaction failed; it runs even when the delivery's context has ended.
const recordBudget = time.Second

// Handle processes one delivery.
func (h *ReceiveStorefrontOrderHandler) Handle(ctx context.Context, c ReceiveStorefrontOrder) (res StorefrontOrderResult, err error) {
	defer func() { setIntakeOutcome(ctx, res, err) }()
	d := intake.OrderDelivery{
		OrganizationID: c.OrganizationID, OrderID: c.Order.ID, OrderNumber: c.Order.OrderNumber,
		TraceID: c.TraceID, ReceivedAt: h.clock.Now(), Payload: c.Body,
	}
	lines, missing := c.Order.ShipmentLines()
	skus := make([]string, len(lines))
	for i, l := range lines {
		skus[i] = l.SKU
	}
	var refusal error
	err = h.uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
		// The claim also reads the order's products and warehouse: one
		// statement, whatever plan then makes of them.
		rec, resolved, err := r.Receipts.Claim(ctx, d, skus)
		if err != nil {
			return fmt.Errorf("claim order receipt: %w", err)
		}
		if rec.Duplicate() {
			res = StorefrontOrderResult{ShipmentID: rec.ShipmentID(), Skipped: rec.Skipped(), Duplicate: true}
			return nil
		}
		s, skipped, err := h.plan(c, lines, missing, resolved, d.ReceivedAt)
		if kind := application.KindOf(err); kind.Refused() {
			// Commit the failed attempt without a shipment: nothing has been
			// written but the receipt.
			refusal = err
			if err := rec.Fail(kind.Code(), c.Body); err != nil {
				return err
			}
			if err := r.Receipts.Finish(ctx, rec); err != nil {
				return err
			}
			return r.Events.Record(ctx, intakeports.OrderFailedEvent(rec, d.ReceivedAt))
		}
		if err != nil {
			return err
		}
		if s != nil {
			// Submitted as a draft is (its lines reserved at its warehouse),
			// stored, and the receipt's success: one statement.
			if err := s.Submit(d.ReceivedAt); err != nil {
				return fmt.Errorf("store shipment: %w", err)
			}
			if err := rec.Succeed(s.ID()); err != nil {
				return err
			}
			// Recorded first: Accept's one statement writes it too.
			if err := r.Events.Record(ctx, shippingports.ShipmentEvent(eventsports.EventShipmentCreated, s, d.ReceivedAt)); err != nil {
				return err
			}
			if err := r.Receipts.Accept(ctx, rec, s); err != nil {
				return fmt.Errorf("store shipment: %w", err)
			}
		} else {
			if err := rec.Skip(skipped); err != nil {
				return err
			}
			if err := r.Receipts.Finish(ctx, rec); err != nil {
				return err
			}
		}
		res = StorefrontOrderResult{ShipmentID: rec.ShipmentID(), Skipped: rec.Skipped()}
		return nil
	})
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			// A delivery whose caller went away was not answered: the
			// storefront retries it, and that attempt counts.
			h.recordFailure(ctx, d, err)
		}
		return StorefrontOrderResult{}, err
	}
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.Bool("storefront.duplicate", res.Duplicate))
	if res.ShipmentID != "" {
		span.SetAttributes(attribute.String("shipment.id", res.ShipmentID))
	}
	return res, refusal
}

// plan checks the order against what the claim read (resolved) and builds
// its shipment: a skip reason, or a refusal (a class that is Refused), or
// the draft to submit. The checks run in the intake's documented order:
// shipping address and SKUs, then the warehouse.
func (h *ReceiveStorefrontOrderHandler) plan(c ReceiveStorefrontOrder, lines []shipping.ShipmentLine, missing []int64,
	resolved intakeports.OrderResolution, now time.Time,
) (*shipping.Shipment, intake.SkipReason, error) {
	o := c.Order
	if o.Cancelled {
		return nil, intake.SkipOrderCancelled, nil
	}
	if len(lines) == 0 && len(missing) == 0 {
		return nil, intake.SkipNoShippableItems, nil
	}
	if o.ShippingAddress == nil {
		return nil, "", domain.ErrMissingShippingAddress
	}
	if len(missing) > 0 {
		return nil, "", &domain.MissingSKUError{LineItemIDs: missing}
	}
	// One read answered both checks; they still run in the documented order.
	var unknown []string
	for _, l := range lines {
		if _, ok := resolved.Products[l.SKU]; !ok {
			unknown = append(unknown, l.SKU)
		}
	}
	if len(unknown) > 0 {
		return nil, "", &domain.UnknownSKUsError{SKUs: unknown}
	}
	for i := range lines {
		lines[i].ItemID = resolved.Products[lines[i].SKU].ID
	}
	if resolved.Warehouse == nil {
		return nil, "", fmt.Errorf("choose the warehouse: %w", domain.ErrNoWarehouse)
	}
	wh := *resolved.Warehouse
	s, err := shipping.NewShipment(shipping.NewShipmentParams{
		ID: h.ids.NewID("shp"), OrganizationID: c.OrganizationID, Kind: shipping.PickPack,
		Warehouse: wh, Address: *o.ShippingAddress, Notes: o.Note, Lines: lines,
		Source: &shipping.ShipmentSource{Type: "storefront", OrderID: o.ID, OrderNumber: int64Value(o.OrderNumber)},
		Test:   o.Test || h.env != domain.Production,
		Now:    now,
	})
	if err != nil {
		return nil, "", err
	}
	return s, "", nil
}

// recordFailure records an attempt whose transaction was rolled back
// (recordFailure).
func (h *ReceiveStorefrontOrderHandler) recordFailure(ctx context.Context, d intake.OrderDelivery, cause error) {
	recordFailure(ctx, h.uow, h.log, d, application.KindOf(cause).Code())
}

// recordFailure records a failed attempt outside the delivery's unit of
// work: a payload refused before processing, or an attempt whose
// transaction was rolled back — in a transaction of its own with its
// storefront_order.failed event. It is best effort — when the database is
// down the record is lost, and the answer (503) says so to the storefront,
// which retries.
func recordFailure(ctx context.Context, uow ports.UnitOfWork[intakeports.Repositories], log *slog.Logger, d intake.OrderDelivery, code string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordBudget)
	defer cancel()
	err := uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
		rec, err := r.Receipts.RecordFailure(ctx, d, code)
		if err != nil || rec == nil {
			return err
		}
		return r.Events.Record(ctx, intakeports.OrderFailedEvent(rec, d.ReceivedAt))
	})
	if err != nil {
		log.WarnContext(ctx, "record failed storefront delivery", slog.Int64("storefront.order.id", d.OrderID),
			slog.String("error", err.Error()))
	}
}

func int64Value(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
