package application

import (
	"context"

	"github.com/acme3pl/fulfillment/ports"
)

// GetOverview asks for what the console's first page counts across every
// organization of the shared kernel's reads: the pending shipments per
// warehouse and the outbox's backlog. (The failed orders are the intake's
// CountFailedOrders, the invoices due billing's ListFinalizingSoon.)
type GetOverview struct{}

// Overview is the answer to GetOverview.
type Overview struct {
	Queues  []ports.WarehouseQueue
	Backlog ports.OutboxBacklog
}

// outboxCountLimit bounds the count of the outbox's waiting events.
const outboxCountLimit = 100_000

// NewGetOverviewHandler builds the handler on the pool's overview.
func NewGetOverviewHandler(o ports.Overview) HandlerFunc[GetOverview, Overview] {
	return func(ctx context.Context, _ GetOverview) (Overview, error) {
		queues, err := o.PendingShipments(ctx)
		if err != nil {
			return Overview{}, err
		}
		backlog, err := o.OutboxBacklog(ctx, outboxCountLimit)
		if err != nil {
			return Overview{}, err
		}
		return Overview{Queues: queues, Backlog: backlog}, nil
	}
}
