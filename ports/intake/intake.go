package intake

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// OrderReceiptRepository stores the receipts of storefront orders
// (intake.OrderReceipt).
type OrderReceiptRepository interface {
	// Claim makes sure the receipt of d's order exists and locks it until
	// the unit of work ends, in one statement: a concurrent delivery of the
	// same order waits here until the holder commits, then sees its outcome.
	// Unless the order has succeeded already, the receipt is marked
	// processing for d (attempts + 1, d's trace ID). It returns the receipt
	// as it is after the claim and, read by the same statement, what the
	// intake must know before it writes: the organization's products whose
	// SKU is in skus, and its warehouse (OrderResolution). Only meaningful
	// inside UnitOfWork.Do.
	Claim(ctx context.Context, d intake.OrderDelivery, skus []string) (*intake.OrderReceipt, OrderResolution, error)
	// Finish stores how the delivery that claimed the receipt ended it
	// without a shipment: status, skip reason, last error, and the body it
	// keeps (r.Payload(): the delivery's body after a failure, none after a
	// skip), in the statement that stores the rest.
	Finish(ctx context.Context, r *intake.OrderReceipt) error
	// Accept ends the claiming delivery with the shipment it made, in one
	// statement: s's lines reserved at its warehouse (as
	// InventoryRepository.Reserve reserves Pick & Pack lines), s stored with
	// its lines (as ShipmentRepository.Create), and r's success (as Finish).
	// s is a new, pending Pick & Pack shipment; r has succeeded with s's ID.
	Accept(ctx context.Context, r *intake.OrderReceipt, s *shipping.Shipment) error
	// RecordFailure records a processed delivery that failed (code is the
	// error code answered) without a claim, in one statement: used for
	// payloads refused before processing and for attempts whose transaction
	// was rolled back. It keeps d.Payload as the order's body, replacing
	// the one kept before, and returns the receipt as recorded. A succeeded
	// receipt is left as it is, and nil returned.
	RecordFailure(ctx context.Context, d intake.OrderDelivery, code string) (*intake.OrderReceipt, error)
	// Get returns the organization's receipt of an order, or
	// domain.ErrNotFound.
	Get(ctx context.Context, organizationID string, orderID int64) (*intake.OrderReceipt, error)

	// List returns one page of the organization's receipts matching filter,
	// latest delivery first (last received, then order ID, both
	// descending), and whether more follow. It never loads kept bodies.
	List(ctx context.Context, organizationID string, filter ReceiptFilter, page ports.Page) (rs []*intake.OrderReceipt, more bool, err error)
	// GetWithPayload returns the organization's receipt of an order and
	// its kept body (nil when none is kept), or domain.ErrNotFound.
	GetWithPayload(ctx context.Context, organizationID string, orderID int64) (*intake.OrderReceipt, []byte, error)
	// ListKept returns up to limit IDs of the organization's failed orders
	// that keep their body (those whose last error is code, when it is not
	// ""), greater than after, in ascending order: a walk
	// over them that replays change nothing in.
	ListKept(ctx context.Context, organizationID, code string, after int64, limit int) ([]int64, error)
	// PurgePayloads deletes up to limit kept bodies of orders whose last
	// delivery was before cutoff, and returns how many it deleted. Several
	// callers at once (replicas) delete disjoint bodies and never wait for
	// each other.
	PurgePayloads(ctx context.Context, cutoff time.Time, limit int) (int, error)
	// FailedOrderStats counts the failed orders of every organization that
	// keep their body, by error code, and tells when the first delivery of
	// the oldest of them arrived (zero when there is none).
	FailedOrderStats(ctx context.Context) (FailedOrderStats, error)
}

// ReceiptFilter narrows a receipt list; zero fields do not filter.
type ReceiptFilter struct {
	Status intake.ReceiptStatus // succeeded or failed
	Error  string               // the last error's code
}

// FailedOrderStats is the answer of OrderReceiptRepository.FailedOrderStats.
type FailedOrderStats struct {
	ByCode map[string]int // failed orders with a kept body, by last error code
	Oldest time.Time      // first delivery of the oldest of them; zero when none
}

// OrderResolution is what OrderReceiptRepository.Claim reads for the order
// intake: the organization's products whose SKU the order names, and the
// warehouse its shipments use when none is named — its default warehouse
// when that is set and active, else its first active warehouse by name then
// ID (the order of WarehouseRepository.ListActive). Warehouse is nil when
// the organization has no active warehouse; deciding what that means is the
// caller's (the intake checks unknown SKUs first).
type OrderResolution struct {
	Products  map[string]shipping.InventoryItem // found products, keyed by SKU
	Warehouse *domain.WarehouseRef              // nil: no active warehouse
}
