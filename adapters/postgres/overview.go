package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/acme3pl/fulfillment/ports"
)

// OverviewReader implements ports.Overview.
type OverviewReader struct{ run runner }

var _ ports.Overview = (*OverviewReader)(nil)

const (
	// pendingShipmentsSQL walks the warehouses (a handful) and counts each
	// one's pending shipments on shipments_warehouse_queue_idx: a range
	// of the index per warehouse, never the whole table. Every pending
	// shipment was submitted (a CHECK says so); the condition is written
	// out because the index is partial on it.
	pendingShipmentsSQL sqlSelect = `SELECT w.id, w.name, q.n, q.oldest
FROM warehouses w
CROSS JOIN LATERAL (SELECT count(*) AS n, min(s.submitted_at) AS oldest FROM shipments s
	WHERE s.warehouse_id = w.id AND s.status = 'pending' AND s.submitted_at IS NOT NULL) q
WHERE q.n > 0
ORDER BY w.name, w.id`
	// openPeriodsEndedBySQL reads the open periods due soonest on
	// billing_periods_due_idx.
	openPeriodsEndedBySQL sqlSelect = `SELECT organization_id, invoice_id, ends_at FROM billing_periods
WHERE status = 'open' AND ends_at <= $1
ORDER BY ends_at, organization_id LIMIT $2`
	// outboxBacklogSQL counts the waiting events up to $1 (a broker down
	// for hours leaves millions: the page says "at least") and reads the
	// oldest by the primary key.
	outboxBacklogSQL sqlSelect = `SELECT (SELECT count(*) FROM (SELECT 1 FROM event_outbox LIMIT $1) w),
	(SELECT recorded_at FROM event_outbox ORDER BY id LIMIT 1)`
)

// PendingShipments implements ports.Overview.
func (o *OverviewReader) PendingShipments(ctx context.Context) ([]ports.WarehouseQueue, error) {
	var out []ports.WarehouseQueue
	err := o.run.query(ctx, pendingShipmentsSQL, func(rows *sql.Rows) error {
		var q ports.WarehouseQueue
		var oldest sql.NullTime
		if err := rows.Scan(&q.WarehouseID, &q.WarehouseName, &q.Pending, &oldest); err != nil {
			return err
		}
		q.OldestSubmitted = oldest.Time.UTC()
		out = append(out, q)
		return nil
	})
	return out, dbErr(err)
}

// OpenPeriodsEndedBy implements ports.Overview.
func (o *OverviewReader) OpenPeriodsEndedBy(ctx context.Context, endedBy time.Time, limit int) ([]ports.DuePeriod, error) {
	var out []ports.DuePeriod
	err := o.run.query(ctx, openPeriodsEndedBySQL, func(rows *sql.Rows) error {
		var p ports.DuePeriod
		if err := rows.Scan(&p.OrganizationID, &p.InvoiceID, &p.Ends); err != nil {
			return err
		}
		p.Ends = p.Ends.UTC()
		out = append(out, p)
		return nil
	}, endedBy, limit)
	return out, dbErr(err)
}

// OutboxBacklog implements ports.Overview.
func (o *OverviewReader) OutboxBacklog(ctx context.Context, limit int) (ports.OutboxBacklog, error) {
	var b ports.OutboxBacklog
	var oldest sql.NullTime
	err := o.run.query(ctx, outboxBacklogSQL, func(rows *sql.Rows) error {
		return rows.Scan(&b.Waiting, &oldest)
	}, limit)
	b.Oldest, b.AtLeast = oldest.Time.UTC(), b.Waiting >= limit
	if !oldest.Valid {
		b.Oldest = time.Time{}
	}
	return b, dbErr(err)
}
