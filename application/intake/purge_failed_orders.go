package intake

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// DefaultFailedOrderRetention is how long a failed order's body is kept
// after its last delivery when FAILED_ORDER_RETENTION is not set.
const DefaultFailedOrderRetention = 720 * time.Hour

// purgeBatch bounds one statement of a purge: each batch is a short
// transaction of its own, so that a purge of a large backlog holds no lock
// for long and a purge interrupted halfway has still done its part.
const purgeBatch = 1000

// PurgeFailedOrders deletes the kept bodies of failed orders whose last
// delivery is older than the retention period; the receipts stay.
type PurgeFailedOrders struct{}

// PurgeFailedOrdersHandler answers PurgeFailedOrders with how many bodies
// it deleted.
type PurgeFailedOrdersHandler struct {
	receipts  intakeports.OrderReceiptRepository // on the pool
	clock     ports.Clock
	retention time.Duration
}

// NewPurgeFailedOrdersHandler builds the handler.
func NewPurgeFailedOrdersHandler(receipts intakeports.OrderReceiptRepository, clock ports.Clock, retention time.Duration) *PurgeFailedOrdersHandler {
	if retention <= 0 {
		retention = DefaultFailedOrderRetention
	}
	return &PurgeFailedOrdersHandler{receipts: receipts, clock: clock, retention: retention}
}

// Handle purges batch after batch until none is left; replicas purging at
// the same time share the rows without waiting for each other. It returns
// what it deleted so far with the error that stopped it.
func (h *PurgeFailedOrdersHandler) Handle(ctx context.Context, _ PurgeFailedOrders) (int, error) {
	cutoff := h.clock.Now().Add(-h.retention)
	total := 0
	for {
		n, err := h.receipts.PurgePayloads(ctx, cutoff, purgeBatch)
		total += n
		if err != nil || n < purgeBatch {
			return total, err
		}
	}
}

// CountFailedOrders asks for the failed orders that keep their body, of
// every organization: the gauges of /metrics.
type CountFailedOrders struct{}

// FailedOrders is the answer to CountFailedOrders.
type FailedOrders struct {
	// ByCode counts them by last error, with every code of
	// ReceiptErrorCodes present (0 when none failed so); a code outside
	// that set is counted under "other".
	ByCode map[string]int
	// OldestAge is how long the oldest of them has waited since its first
	// delivery; 0 when there is none.
	OldestAge time.Duration
}

// CountFailedOrdersHandler answers CountFailedOrders.
type CountFailedOrdersHandler struct {
	receipts intakeports.OrderReceiptRepository
	clock    ports.Clock
}

// NewCountFailedOrdersHandler builds the handler.
func NewCountFailedOrdersHandler(receipts intakeports.OrderReceiptRepository, clock ports.Clock) *CountFailedOrdersHandler {
	return &CountFailedOrdersHandler{receipts: receipts, clock: clock}
}

// OtherReceiptError is the code label of failed orders whose code is not
// one of ReceiptErrorCodes.
const OtherReceiptError = "other"

// Handle counts.
func (h *CountFailedOrdersHandler) Handle(ctx context.Context, _ CountFailedOrders) (FailedOrders, error) {
	stats, err := h.receipts.FailedOrderStats(ctx)
	if err != nil {
		return FailedOrders{}, err
	}
	out := FailedOrders{ByCode: make(map[string]int, len(ReceiptErrorCodes)+1)}
	for _, c := range ReceiptErrorCodes {
		out.ByCode[c] = 0
	}
	out.ByCode[OtherReceiptError] = 0
	for code, n := range stats.ByCode {
		if _, known := out.ByCode[code]; !known || code == OtherReceiptError {
			code = OtherReceiptError
		}
		out.ByCode[code] += n
	}
	if !stats.Oldest.IsZero() {
		out.OldestAge = max(h.clock.Now().Sub(stats.Oldest), 0)
	}
	return out, nil
}
