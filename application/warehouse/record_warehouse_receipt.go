package warehouse

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// RecordWarehouseReceipt reports goods received at the token's warehouse
// for an organization: the domain's report of them.
type RecordWarehouseReceipt warehouse.ReceiptReport

// SpanAttributes implements Attributer.
func (c RecordWarehouseReceipt) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID, attribute.String("warehouse.id", c.WarehouseID),
		attribute.String("warehouse.reference", c.Reference))
}

// ReceiptResult is the receipt recorded.
type ReceiptResult = Recorded[*warehouse.Receipt]

// RecordWarehouseReceiptHandler records receipts.
type RecordWarehouseReceiptHandler struct{ reporting }

// NewRecordWarehouseReceiptHandler builds the handler.
func NewRecordWarehouseReceiptHandler(uow ports.UnitOfWork[warehouseports.Repositories], clock ports.Clock, ids ports.IDGenerator, billing warehouseports.ReportBilling) *RecordWarehouseReceiptHandler {
	return &RecordWarehouseReceiptHandler{reporting{uow: uow, clock: clock, ids: ids, billing: billing}}
}

// Handle validates the receipt before any transaction (400s, in the order
// of warehouse.NewReceipt), then, in one transaction: the warehouse must serve
// the organization (422 invalid_warehouse), the items must be the
// organization's (422 unknown_items); the receipt is stored unless the
// warehouse has one under its reference — then the same content is a retry
// (the first receipt, nothing written) and other content 409
// reference_conflict. A new receipt's lines raise on hand, a movement each,
// never past warehouse.MaxOnHand (422 invalid_parameter naming the line);
// then, under the organization's billing lock, a receipt dated inside a
// closed period is refused (422 period_closed) unless it came without its
// time: then it raced a close and is dated after it (checkPeriod); its
// charges and event are written with it.
func (h *RecordWarehouseReceiptHandler) Handle(ctx context.Context, c RecordWarehouseReceipt) (ReceiptResult, error) {
	receipt, err := warehouse.NewReceipt(h.ids.NewID("rcv"), h.clock.Now(), warehouse.ReceiptReport(c))
	if err != nil {
		return ReceiptResult{}, err
	}
	return recordReport(ctx, h.uow, "receipt", receipt,
		func(ctx context.Context, r warehouseports.Repositories) error {
			return resolveReceipt(ctx, r.Inventory, receipt)
		},
		func(ctx context.Context, r warehouseports.Repositories, receipt *warehouse.Receipt) (*warehouse.Receipt, bool, error) {
			return r.WarehouseReceipts.Create(ctx, receipt)
		},
		func(ctx context.Context, r warehouseports.Repositories) error {
			if err := r.Stock.Move(ctx, receipt.Movements()); err != nil {
				var over *warehouse.OnHandBoundError
				if errors.As(err, &over) { // 422 invalid_parameter naming the line
					return warehouse.ReceiptReport(c).OnHandPast(over)
				}
				return fmt.Errorf("receive stock of %s: %w", c.Reference, err)
			}
			// After its row locks: billing's lock comes last in every fact's
			// transaction (docs/billing.md, "One lock order"). An undated
			// receipt that raced a close is dated after it, its movements too.
			if err := checkPeriod(ctx, h.reporting, r, receipt, func(was time.Time) error {
				return r.WarehouseReceipts.Redate(ctx, receipt, was)
			}); err != nil {
				return err
			}
			// Billing: the receipt's charges (one statement).
			if err := h.billing.ChargeReceipt(ctx, r, receipt); err != nil {
				return fmt.Errorf("charge receipt: %w", err)
			}
			// Events: inventory.received to the outbox (one statement; the
			// receipt is a new row: nobody else writes events of it before
			// the commit).
			if err := r.Events.Record(ctx, eventsports.Event{
				Type: eventsports.EventInventoryReceived, Subject: receipt.ID(), OrganizationID: receipt.OrganizationID(),
				Time: receipt.CreatedAt(), Data: receipt,
			}); err != nil {
				return fmt.Errorf("event of receipt: %w", err)
			}
			return nil
		})
}

// resolveReceipt names the receipt's items from the organization's products
// and cartons, in one query per kind it holds.
func resolveReceipt(ctx context.Context, inv shippingports.InventoryRepository, receipt *warehouse.Receipt) error {
	ids := map[shipping.ItemKind][]string{}
	for _, l := range receipt.Lines() {
		ids[l.Kind] = append(ids[l.Kind], l.ItemID)
	}
	found := map[shipping.ItemKind]map[string]shipping.InventoryItem{}
	for _, kind := range []shipping.ItemKind{shipping.KindProduct, shipping.KindCarton} {
		if len(ids[kind]) == 0 {
			continue
		}
		items, err := inv.FindByIDs(ctx, receipt.OrganizationID(), kind, ids[kind])
		if err != nil {
			return fmt.Errorf("find %ss: %w", kind, err)
		}
		found[kind] = items
	}
	return receipt.Resolve(found[shipping.KindProduct], found[shipping.KindCarton])
}
