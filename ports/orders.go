package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// OrderReceiptRepository stores the receipts of storefront orders
// (domain.OrderReceipt).
type OrderReceiptRepository interface {
	// Claim makes sure the receipt of d's order exists and locks it until
	// the unit of work ends, in one statement: a concurrent delivery of the
	// same order waits here until the holder commits, then sees its outcome.
	// Unless the order has succeeded already, the receipt is marked
	// processing for d (attempts + 1, d's trace ID). It returns the receipt
	// as it is after the claim. Only meaningful inside UnitOfWork.Do.
	Claim(ctx context.Context, d domain.OrderDelivery) (*domain.OrderReceipt, error)
	// Finish stores how the delivery that claimed the receipt ended it:
	// status, skip reason, last error and shipment.
	Finish(ctx context.Context, r *domain.OrderReceipt) error
	// RecordFailure records a processed delivery that failed (code is the
	// error code answered) without a claim, in one statement: used for
	// payloads refused before processing and for attempts whose transaction
	// was rolled back. A succeeded receipt is left as it is.
	RecordFailure(ctx context.Context, d domain.OrderDelivery, code string) error
	// Get returns the organization's receipt of an order, or
	// domain.ErrNotFound.
	Get(ctx context.Context, organizationID string, orderID int64) (*domain.OrderReceipt, error)
}
