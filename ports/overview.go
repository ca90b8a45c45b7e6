package ports

import (
	"context"
	"time"
)

// Overview reads what the console's first page counts across every
// organization (docs/console.md): each a bounded read on an index, fast at
// millions of shipments and invoices.
type Overview interface {
	// PendingShipments counts the pending shipments of each warehouse that
	// has any, with the oldest's submission.
	PendingShipments(ctx context.Context) ([]WarehouseQueue, error)
	// OpenPeriodsEndedBy lists up to limit open billing periods that end by
	// endedBy, the soonest first.
	OpenPeriodsEndedBy(ctx context.Context, endedBy time.Time, limit int) ([]DuePeriod, error)
	// OutboxBacklog counts the events waiting to be published, up to
	// limit, and the oldest's recording.
	OutboxBacklog(ctx context.Context, limit int) (OutboxBacklog, error)
}

// WarehouseQueue is a warehouse's pending shipments.
type WarehouseQueue struct {
	WarehouseID, WarehouseName string
	Pending                    int
	OldestSubmitted            time.Time
}

// DuePeriod is an open billing period and its invoice.
type DuePeriod struct {
	OrganizationID, InvoiceID string
	Ends                      time.Time
}

// OutboxBacklog is the events waiting in the outbox.
type OutboxBacklog struct {
	Waiting int  // at most the limit asked
	AtLeast bool // Waiting is the limit: there may be more
	Oldest  time.Time
}
