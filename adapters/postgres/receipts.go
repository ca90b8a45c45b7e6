package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type orderReceiptRow struct {
	bun.BaseModel `bun:"table:order_receipts,alias:r"`

	OrganizationID  string    `bun:"organization_id,pk"`
	OrderID         int64     `bun:"order_id,pk"`
	OrderNumber     *int64    `bun:"order_number"`
	Status          string    `bun:"status"`
	Skipped         *string   `bun:"skipped"`
	Attempts        int       `bun:"attempts"`
	LastError       *string   `bun:"last_error"`
	ShipmentID      *string   `bun:"shipment_id"`
	TraceID         string    `bun:"trace_id"`
	FirstReceivedAt time.Time `bun:"first_received_at"`
	LastReceivedAt  time.Time `bun:"last_received_at"`
	PayloadBytes    *int      `bun:"payload_bytes"` // octet_length(payload) of the reads (receiptReadColumns)
}

func (row orderReceiptRow) toDomain() *domain.OrderReceipt {
	return domain.RehydrateOrderReceipt(domain.OrderReceiptParams{
		OrganizationID: row.OrganizationID, OrderID: row.OrderID, OrderNumber: row.OrderNumber,
		Status: domain.ReceiptStatus(row.Status), Skipped: domain.SkipReason(deref(row.Skipped)), Attempts: row.Attempts,
		LastError: deref(row.LastError), ShipmentID: deref(row.ShipmentID), TraceID: row.TraceID,
		FirstReceived: row.FirstReceivedAt, LastReceived: row.LastReceivedAt, PayloadBytes: row.PayloadBytes,
	})
}

// nullIfEmpty stores "" as NULL, as the table's checks expect.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// OrderReceiptRepository implements ports.OrderReceiptRepository.
type OrderReceiptRepository struct {
	db  bun.IDB
	hot runner
}

var _ ports.OrderReceiptRepository = (*OrderReceiptRepository)(nil)

// receiptColumns is what every statement returns, in orderReceiptRow's
// shape.
const receiptColumns = "organization_id, order_id, order_number, status, skipped, attempts, last_error, " +
	"shipment_id, trace_id, first_received_at, last_received_at"

// claimQuery inserts the receipt or, when it exists, updates it — which takes
// the row lock, waiting for a concurrent holder to commit — and returns the
// row in one round trip. Under READ COMMITTED, ON CONFLICT DO UPDATE acts
// on the latest committed version of the row even when the statement's
// snapshot predates it, so a delivery that waited sees the outcome of the
// one it waited for. The SET is domain.ClaimOrderReceipt written in SQL (a
// succeeded receipt keeps its state: only the time of the last delivery
// moves).
var claimQuery = hotQuery{operation: "INSERT", sql: `INSERT INTO order_receipts AS r
	(organization_id, order_id, order_number, status, attempts, trace_id, first_received_at, last_received_at)
VALUES ($1, $2, $3, 'processing', 1, $4, $5, $5)
ON CONFLICT (organization_id, order_id) DO UPDATE SET
	last_received_at = greatest(r.last_received_at, excluded.last_received_at),
	order_number     = coalesce(r.order_number, excluded.order_number),
	status           = CASE WHEN r.status = 'succeeded' THEN r.status ELSE 'processing' END,
	attempts         = CASE WHEN r.status = 'succeeded' THEN r.attempts ELSE r.attempts + 1 END,
	trace_id         = CASE WHEN r.status = 'succeeded' THEN r.trace_id ELSE excluded.trace_id END
RETURNING ` + receiptColumns}

// scanReceipt reads one row of receiptColumns.
func scanReceipt(rows *sql.Rows, row *orderReceiptRow) error {
	return rows.Scan(&row.OrganizationID, &row.OrderID, &row.OrderNumber, &row.Status, &row.Skipped, &row.Attempts,
		&row.LastError, &row.ShipmentID, &row.TraceID, &row.FirstReceivedAt, &row.LastReceivedAt)
}

// Claim implements ports.OrderReceiptRepository: claimQuery, then the
// receipt rehydrated from the row it returns.
func (r *OrderReceiptRepository) Claim(ctx context.Context, d domain.OrderDelivery) (*domain.OrderReceipt, error) {
	var (
		row orderReceiptRow
		n   int
	)
	err := r.hot.query(ctx, &claimQuery, func(rows *sql.Rows) error { n++; return scanReceipt(rows, &row) },
		d.OrganizationID, d.OrderID, d.OrderNumber, d.TraceID, d.ReceivedAt)
	if err != nil {
		return nil, dbErr(err)
	}
	if n != 1 {
		return nil, errors.New("claim order receipt: no row returned")
	}
	return row.toDomain(), nil
}

// finishReceiptQuery also sets the kept body: the delivery's after a
// failure, NULL after a success — which deletes a body an earlier failure
// kept, in the statement that records the success (no statement more).
var finishReceiptQuery = hotQuery{operation: "UPDATE", sql: `UPDATE order_receipts
	SET status = $1, skipped = $2, last_error = $3, shipment_id = $4, payload = $7
	WHERE organization_id = $5 AND order_id = $6`}

// Finish implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) Finish(ctx context.Context, rec *domain.OrderReceipt) error {
	n, err := r.hot.exec(ctx, &finishReceiptQuery,
		string(rec.Status()), nullIfEmpty(string(rec.Skipped())), nullIfEmpty(rec.LastError()), nullIfEmpty(rec.ShipmentID()),
		rec.OrganizationID(), rec.OrderID(), rec.Payload())
	if err != nil {
		return dbErr(err)
	}
	if n != 1 {
		return errors.New("finish order receipt: the claimed receipt is gone")
	}
	return nil
}

// recordFailureSQL is domain.RecordFailedDelivery in one statement: a
// failed attempt counted, its body kept, a succeeded receipt left alone
// (the WHERE of DO UPDATE).
const recordFailureSQL = `INSERT INTO order_receipts AS r
	(organization_id, order_id, order_number, status, attempts, last_error, trace_id, first_received_at, last_received_at, payload)
VALUES (?, ?, ?, 'failed', 1, ?, ?, ?, ?, ?)
ON CONFLICT (organization_id, order_id) DO UPDATE SET
	status           = 'failed',
	attempts         = r.attempts + 1,
	last_error       = excluded.last_error,
	trace_id         = excluded.trace_id,
	payload          = excluded.payload,
	order_number     = coalesce(r.order_number, excluded.order_number),
	last_received_at = greatest(r.last_received_at, excluded.last_received_at)
WHERE r.status <> 'succeeded'`

// RecordFailure implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) RecordFailure(ctx context.Context, d domain.OrderDelivery, code string) error {
	_, err := r.db.NewRaw(recordFailureSQL, d.OrganizationID, d.OrderID, d.OrderNumber, code, d.TraceID,
		d.ReceivedAt, d.ReceivedAt, d.Payload).Exec(ctx)
	return dbErr(err)
}

// Get implements ports.OrderReceiptRepository: domain.ErrNotFound (through
// dbErr) when the organization has no receipt of the order.
func (r *OrderReceiptRepository) Get(ctx context.Context, organizationID string, orderID int64) (*domain.OrderReceipt, error) {
	var row orderReceiptRow
	err := r.db.NewSelect().Model(&row).ColumnExpr(receiptReadColumns).
		Where("organization_id = ? AND order_id = ?", organizationID, orderID).Scan(ctx)
	if err != nil {
		return nil, dbErr(err)
	}
	return row.toDomain(), nil
}

// ---- Kept bodies of failed orders: the list, the replay, the purge and
// the gauges (docs/storefront-intake.md, "When an order fails"). Reads
// return the body's size, octet_length(payload), which PostgreSQL reads
// from the value's header without loading it; only GetWithPayload loads a
// body.

// receiptReadColumns is receiptColumns and the kept body's size (NULL when
// none is kept), in orderReceiptRow's shape.
const receiptReadColumns = receiptColumns + ", octet_length(payload) AS payload_bytes"

// listReceiptsSQL pages the organization's receipts, latest delivery first.
// A NULL filter does not filter (bun formats the values into the statement,
// so the planner drops the unused conditions).
const listReceiptsSQL = `SELECT ` + receiptReadColumns + `
FROM order_receipts
WHERE organization_id = ?0
	AND (?1::text IS NULL OR status = ?1)
	AND (?2::text IS NULL OR last_error = ?2)
ORDER BY last_received_at DESC, order_id DESC
LIMIT ?3 OFFSET ?4`

// List implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) List(ctx context.Context, organizationID string, filter ports.ReceiptFilter,
	page ports.Page,
) ([]*domain.OrderReceipt, bool, error) {
	var rows []orderReceiptRow
	err := r.db.NewRaw(listReceiptsSQL, organizationID, nullIfEmpty(string(filter.Status)), nullIfEmpty(filter.Error),
		page.Take+1, page.Skip).Scan(ctx, &rows)
	if err != nil {
		return nil, false, dbErr(err)
	}
	rows, more := trimPage(rows, page)
	out := make([]*domain.OrderReceipt, len(rows))
	for i, row := range rows {
		out[i] = row.toDomain()
	}
	return out, more, nil
}

// receiptWithPayloadRow is a receipt and its kept body.
type receiptWithPayloadRow struct {
	orderReceiptRow
	Payload []byte `bun:"payload"`
}

// GetWithPayload implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) GetWithPayload(ctx context.Context, organizationID string, orderID int64) (*domain.OrderReceipt, []byte, error) {
	var row receiptWithPayloadRow
	err := r.db.NewRaw(`SELECT `+receiptReadColumns+`, payload FROM order_receipts
WHERE organization_id = ? AND order_id = ?`, organizationID, orderID).Scan(ctx, &row)
	if err != nil {
		return nil, nil, dbErr(err)
	}
	return row.toDomain(), row.Payload, nil
}

// ListKept implements ports.OrderReceiptRepository, on the partial index
// order_receipts_kept_idx.
func (r *OrderReceiptRepository) ListKept(ctx context.Context, organizationID string, after int64, limit int) ([]int64, error) {
	var ids []int64
	err := r.db.NewRaw(`SELECT order_id FROM order_receipts
WHERE organization_id = ? AND payload IS NOT NULL AND status = 'failed' AND order_id > ?
ORDER BY order_id
LIMIT ?`, organizationID, after, limit).Scan(ctx, &ids)
	return ids, dbErr(err)
}

// purgePayloadsSQL deletes a batch of kept bodies past retention. SKIP
// LOCKED leaves rows that another purge, or a delivery in flight, holds:
// replicas purging at once share the work without waiting, and a delivery
// is never held up by a purge. The batch is chosen once (MATERIALIZED),
// and the UPDATE checks the body again, so that a row another purge
// emptied between the two is neither emptied again nor counted twice.
const purgePayloadsSQL = `WITH old AS MATERIALIZED (
	SELECT organization_id, order_id FROM order_receipts
	WHERE payload IS NOT NULL AND last_received_at < ?
	LIMIT ?
	FOR UPDATE SKIP LOCKED
)
UPDATE order_receipts AS r SET payload = NULL
FROM old
WHERE r.organization_id = old.organization_id AND r.order_id = old.order_id AND r.payload IS NOT NULL`

// PurgePayloads implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) PurgePayloads(ctx context.Context, cutoff time.Time, limit int) (int, error) {
	res, err := r.db.NewRaw(purgePayloadsSQL, cutoff, limit).Exec(ctx)
	if err != nil {
		return 0, dbErr(err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// FailedOrderStats implements ports.OrderReceiptRepository, on the partial
// index order_receipts_kept_idx: its cost grows with the number of kept
// bodies, not with the number of orders.
func (r *OrderReceiptRepository) FailedOrderStats(ctx context.Context) (ports.FailedOrderStats, error) {
	var rows []struct {
		Code   string    `bun:"code"`
		Count  int       `bun:"count"`
		Oldest time.Time `bun:"oldest"`
	}
	err := r.db.NewRaw(`SELECT coalesce(last_error, '') AS code, count(*) AS count, min(first_received_at) AS oldest
FROM order_receipts
WHERE payload IS NOT NULL AND status = 'failed'
GROUP BY 1`).Scan(ctx, &rows)
	if err != nil {
		return ports.FailedOrderStats{}, dbErr(err)
	}
	stats := ports.FailedOrderStats{ByCode: make(map[string]int, len(rows))}
	for _, row := range rows {
		stats.ByCode[row.Code] = row.Count
		if stats.Oldest.IsZero() || row.Oldest.Before(stats.Oldest) {
			stats.Oldest = row.Oldest.UTC()
		}
	}
	return stats, nil
}
