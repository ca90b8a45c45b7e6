package intake

import (
	"errors"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

// ReceiptStatus is the state of an order receipt. A receipt is
// ReceiptProcessing only inside the transaction of the delivery that has
// claimed it; every committed receipt is succeeded or failed.
type ReceiptStatus string

// Receipt statuses.
const (
	ReceiptProcessing ReceiptStatus = "processing"
	ReceiptSucceeded  ReceiptStatus = "succeeded"
	ReceiptFailed     ReceiptStatus = "failed"
)

// SkipReason says why an order that was acknowledged made no shipment.
type SkipReason string

// The reasons an order is acknowledged without a shipment.
const (
	SkipNoShippableItems SkipReason = "no_shippable_items"
	SkipOrderCancelled   SkipReason = "order_cancelled"
)

// OrderReceipt is the record of one storefront order's deliveries: the
// idempotency fact of the order intake, one per organization and order ID.
//
// Its life, delivery by delivery:
//
//   - A delivery claims the receipt, which makes it on the first delivery
//     and locks it for the rest of the delivery's transaction, so that
//     deliveries of one order queue there. Unless the order has succeeded,
//     the claim marks the receipt processing and counts the delivery as an
//     attempt (attempts + 1, the delivery's trace ID). A succeeded receipt
//     is final: a delivery that claims it is a duplicate (Duplicate), is
//     answered from it, and is not an attempt; only the time of the last
//     delivery moves (ClaimOrderReceipt). The repository makes the claim
//     in one statement that also takes the lock
//     (OrderReceiptRepository.Claim) and returns the receipt as it is
//     after it.
//   - The delivery that claimed the receipt ends it: Succeed with the
//     shipment it made, Skip with why it made none, or Fail with the error
//     code it was answered. The last error of a failed attempt stays after
//     a later success: the receipt tells the whole story.
//   - A delivery that failed outside its transaction (refused before
//     processing, or rolled back) is recorded failed by one statement of
//     its own, which leaves a succeeded receipt alone
//     (RecordFailedDelivery; OrderReceiptRepository.RecordFailure).
//   - Every failed attempt keeps the delivery's body as received (the
//     kept payload), replacing an earlier one, so that the order can be
//     replayed once the organization's data is fixed; a success drops it.
//     Reads never load the body: a receipt read from storage knows only
//     whether one is kept and its size.
type OrderReceipt struct {
	organizationID string
	orderID        int64
	orderNumber    *int64
	status         ReceiptStatus
	skipped        SkipReason
	attempts       int
	lastError      string
	shipmentID     string
	traceID        string
	firstReceived  time.Time
	lastReceived   time.Time
	payloadKept    bool
	payloadBytes   int    // the kept body's size; 0 when none is kept
	payload        []byte // the body to keep, set by Fail; never loaded by reads
}

// ErrPayloadNotKept: the order has failed, but its body is no longer kept
// (it was purged after the retention period, or the failure was recorded
// before bodies were kept): it cannot be replayed.
var ErrPayloadNotKept = domain.NewError(domain.KindPayloadNotKept, "the order's body is no longer kept")

// OrderDelivery is one delivery of a storefront order, as its receipt
// records it.
type OrderDelivery struct {
	OrganizationID string
	OrderID        int64
	OrderNumber    *int64 // nil when the payload had none
	TraceID        string
	ReceivedAt     time.Time
	// Payload is the delivery's body as received, kept when the delivery
	// is recorded as failed.
	Payload []byte
}

// ClaimOrderReceipt is the claim of delivery d on the order's receipt
// (stored; nil on the order's first delivery): the receipt as it is after
// the claim. A first delivery makes the receipt, processing, its first
// attempt. Later ones mark it processing and count an attempt with their
// trace ID, unless the order has succeeded: a succeeded receipt is final
// and a delivery that claims it is a duplicate, not an attempt. Every
// delivery moves the time of the last delivery (never back) and fills an
// order number the receipt lacks. The postgres adapter does the same in the
// one statement that also takes the receipt's lock.
func ClaimOrderReceipt(stored *OrderReceipt, d OrderDelivery) *OrderReceipt {
	r := delivered(stored, d)
	if r.status != ReceiptSucceeded {
		r.status, r.attempts, r.traceID = ReceiptProcessing, r.attempts+1, d.TraceID
	}
	return r
}

// RecordFailedDelivery is the record of delivery d that failed outside its
// transaction (refused before processing, or rolled back), answered with
// code: a failed attempt, unless the order has succeeded (then the stored
// receipt is returned unchanged, nothing is recorded).
func RecordFailedDelivery(stored *OrderReceipt, d OrderDelivery, code string) *OrderReceipt {
	if stored != nil && stored.status == ReceiptSucceeded {
		return stored
	}
	r := delivered(stored, d)
	r.status, r.attempts, r.lastError, r.traceID = ReceiptFailed, r.attempts+1, code, d.TraceID
	r.keep(d.Payload)
	return r
}

// delivered is a copy of stored (or a new receipt of d's order, without
// attempts) with d's time of delivery and order number taken in.
func delivered(stored *OrderReceipt, d OrderDelivery) *OrderReceipt {
	if stored == nil {
		return &OrderReceipt{organizationID: d.OrganizationID, orderID: d.OrderID, orderNumber: d.OrderNumber,
			firstReceived: d.ReceivedAt.UTC(), lastReceived: d.ReceivedAt.UTC()}
	}
	r := *stored
	if d.ReceivedAt.After(r.lastReceived) {
		r.lastReceived = d.ReceivedAt.UTC()
	}
	if r.orderNumber == nil {
		r.orderNumber = d.OrderNumber
	}
	return &r
}

// OrderReceiptParams carry a stored receipt.
type OrderReceiptParams struct {
	OrganizationID string
	OrderID        int64
	OrderNumber    *int64 // nil when no delivery had one
	Status         ReceiptStatus
	Skipped        SkipReason // for a succeeded order that made no shipment
	Attempts       int        // deliveries processed (duplicates are not)
	LastError      string     // code of the last failed attempt; "" when none failed
	ShipmentID     string     // "" unless a shipment was made
	TraceID        string     // of the delivery that last processed the order
	FirstReceived  time.Time
	LastReceived   time.Time
	PayloadBytes   *int // size of the kept body; nil when none is kept
}

// RehydrateOrderReceipt rebuilds a receipt from storage. Only the postgres
// adapter calls it; the table's checks hold the invariants.
func RehydrateOrderReceipt(p OrderReceiptParams) *OrderReceipt {
	return &OrderReceipt{
		organizationID: p.OrganizationID, orderID: p.OrderID, orderNumber: p.OrderNumber, status: p.Status,
		skipped: p.Skipped, attempts: p.Attempts, lastError: p.LastError, shipmentID: p.ShipmentID,
		traceID: p.TraceID, firstReceived: p.FirstReceived.UTC(), lastReceived: p.LastReceived.UTC(),
		payloadKept: p.PayloadBytes != nil, payloadBytes: derefInt(p.PayloadBytes),
	}
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// Duplicate reports whether the receipt is final: the order has succeeded.
// Asked of a receipt just claimed, it tells a duplicate delivery, which is
// answered from the receipt (the same shipment, or the same skip) and was
// not counted as an attempt.
func (r *OrderReceipt) Duplicate() bool { return r.status == ReceiptSucceeded }

// Succeed ends the claiming delivery with the shipment it made.
func (r *OrderReceipt) Succeed(shipmentID string) error {
	return r.finish("succeed", shipmentID == "", "a success names its shipment", nil, func() {
		r.status, r.shipmentID = ReceiptSucceeded, shipmentID
	})
}

// Skip ends the claiming delivery with an acknowledgement that makes no
// shipment, for reason.
func (r *OrderReceipt) Skip(reason SkipReason) error {
	return r.finish("skip", reason != SkipNoShippableItems && reason != SkipOrderCancelled,
		fmt.Sprintf("%q is not a reason to skip an order", reason), nil, func() {
			r.status, r.skipped = ReceiptSucceeded, reason
		})
}

// Fail ends the claiming delivery as a failed attempt answered with code,
// keeping payload, the delivery's body as received; the next delivery is
// processed from scratch.
func (r *OrderReceipt) Fail(code string, payload []byte) error {
	return r.finish("fail", code == "", "a failure names its error code", payload, func() {
		r.status, r.lastError = ReceiptFailed, code
	})
}

// finish ends the claiming delivery (verb: succeed, skip, fail): refused
// when it is not claimed, or when bad, for why; else outcome sets the
// receipt's end and payload is kept.
func (r *OrderReceipt) finish(verb string, bad bool, why string, payload []byte, outcome func()) error {
	if err := r.claimed(verb); err != nil {
		return err
	}
	if bad {
		return errors.New("order receipt: " + why)
	}
	outcome()
	r.keep(payload)
	return nil
}

// keep makes payload the kept body (nil: none is kept).
func (r *OrderReceipt) keep(payload []byte) {
	r.payload, r.payloadKept, r.payloadBytes = payload, payload != nil, len(payload)
}

// claimed refuses to end a receipt that no delivery holds: a succeeded one
// is final, and a failed one must be claimed again first.
func (r *OrderReceipt) claimed(op string) error {
	if r.status != ReceiptProcessing {
		return fmt.Errorf("%s a %s order receipt: %w", op, r.status, domain.ErrInvalidState)
	}
	return nil
}

// Accessors.
func (r *OrderReceipt) OrganizationID() string   { return r.organizationID }
func (r *OrderReceipt) OrderID() int64           { return r.orderID }
func (r *OrderReceipt) OrderNumber() *int64      { return r.orderNumber }
func (r *OrderReceipt) Status() ReceiptStatus    { return r.status }
func (r *OrderReceipt) Skipped() SkipReason      { return r.skipped }
func (r *OrderReceipt) Attempts() int            { return r.attempts }
func (r *OrderReceipt) LastError() string        { return r.lastError }
func (r *OrderReceipt) ShipmentID() string       { return r.shipmentID }
func (r *OrderReceipt) TraceID() string          { return r.traceID }
func (r *OrderReceipt) FirstReceived() time.Time { return r.firstReceived }
func (r *OrderReceipt) LastReceived() time.Time  { return r.lastReceived }
func (r *OrderReceipt) PayloadKept() bool        { return r.payloadKept }

// PayloadBytes is the size of the kept body (0 when none is kept).
func (r *OrderReceipt) PayloadBytes() int { return r.payloadBytes }

// Payload is the body the last transition keeps, for the repository to
// store: set by Fail and RecordFailedDelivery, nil after Succeed and Skip.
// A receipt read from storage has none (reads never load bodies).
func (r *OrderReceipt) Payload() []byte { return r.payload }
