package ports

import (
	"context"
	"time"
)

// ReceiptStatus is the state of an order receipt. A receipt is
// ReceiptProcessing only inside the transaction of the delivery that holds
// its lock; every committed receipt is succeeded or failed.
type ReceiptStatus string

// Receipt statuses.
const (
	ReceiptProcessing ReceiptStatus = "processing"
	ReceiptSucceeded  ReceiptStatus = "succeeded"
	ReceiptFailed     ReceiptStatus = "failed"
)

// OrderReceipt is the record of one storefront order's deliveries: the
// idempotency fact of the order intake, one per organization and order id.
type OrderReceipt struct {
	OrganizationID string
	OrderID        int64
	OrderNumber    *int64 // nil when the payload had none
	Status         ReceiptStatus
	Skipped        string // "no_shippable_items" or "order_cancelled" for a succeeded order that made no shipment
	Attempts       int    // deliveries processed (duplicates are not processed)
	LastError      string // code of the last failed attempt; "" when none failed
	ShipmentID     string // "" unless a shipment was made
	TraceID        string // trace of the delivery that last processed the order
	FirstReceived  time.Time
	LastReceived   time.Time
}

// ReceiptDelivery identifies one delivery of an order.
type ReceiptDelivery struct {
	OrganizationID string
	OrderID        int64
	OrderNumber    *int64
	TraceID        string
	ReceivedAt     time.Time
}

// OrderReceiptRepository records storefront order deliveries.
type OrderReceiptRepository interface {
	// Claim makes sure the receipt of d's order exists and locks it until
	// the unit of work ends, in one statement: a concurrent delivery of the
	// same order waits here until the holder commits, then sees its outcome.
	// Unless the order has succeeded already, the receipt is marked
	// processing for d (attempts + 1, d's trace id). It returns the receipt
	// as it is after the claim. Only meaningful inside UnitOfWork.Do.
	Claim(ctx context.Context, d ReceiptDelivery) (OrderReceipt, error)
	// Finish stores the outcome of the delivery that claimed the receipt:
	// status, skipped, last error and shipment id.
	Finish(ctx context.Context, r OrderReceipt) error
	// RecordFailure records a processed delivery that failed (code is the
	// error code answered) without a claim, in one statement: used for
	// payloads refused before processing and for attempts whose transaction
	// was rolled back. A succeeded receipt is left as it is.
	RecordFailure(ctx context.Context, d ReceiptDelivery, code string) error
	// Get returns the organization's receipt of an order, or
	// domain.ErrNotFound.
	Get(ctx context.Context, organizationID string, orderID int64) (OrderReceipt, error)
	// WebhookSecret returns the organization's storefront webhook secret and
	// whether it has one.
	WebhookSecret(ctx context.Context, organizationID string) (secret string, ok bool, err error)
}
