package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type orderReceiptRow struct {
	OrganizationID  string
	OrderID         int64
	OrderNumber     *int64
	Status          string
	Skipped         *string
	Attempts        int
	LastError       *string
	ShipmentID      *string
	TraceID         string
	FirstReceivedAt time.Time
	LastReceivedAt  time.Time
	PayloadBytes    *int // octet_length(payload) of the reads (receiptReadColumns)
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
	run runner
}

var _ ports.OrderReceiptRepository = (*OrderReceiptRepository)(nil)

// receiptColumns is what every statement returns, in scanReceipt's order.
const receiptColumns = `organization_id, order_id, order_number, status, skipped, attempts, last_error,
	shipment_id, trace_id, first_received_at, last_received_at`

// claimReceiptSQL inserts the receipt or, when it exists, updates it — which takes
// the row lock, waiting for a concurrent holder to commit — and returns the
// row in one round trip. Under READ COMMITTED, ON CONFLICT DO UPDATE acts
// on the latest committed version of the row even when the statement's
// snapshot predates it, so a delivery that waited sees the outcome of the
// one it waited for. The SET is domain.ClaimOrderReceipt written in SQL (a
// succeeded receipt keeps its state: only the time of the last delivery
// moves).
const claimReceiptSQL = `INSERT INTO order_receipts AS r
	(organization_id, order_id, order_number, status, attempts, trace_id, first_received_at, last_received_at)
VALUES ($1, $2, $3, 'processing', 1, $4, $5, $5)
ON CONFLICT (organization_id, order_id) DO UPDATE SET
	last_received_at = greatest(r.last_received_at, excluded.last_received_at),
	order_number     = coalesce(r.order_number, excluded.order_number),
	status           = CASE WHEN r.status = 'succeeded' THEN r.status ELSE 'processing' END,
	attempts         = CASE WHEN r.status = 'succeeded' THEN r.attempts ELSE r.attempts + 1 END,
	trace_id         = CASE WHEN r.status = 'succeeded' THEN r.trace_id ELSE excluded.trace_id END
RETURNING ` + receiptColumns

// scanReceipt reads one row of receiptColumns.
func scanReceipt(rows *sql.Rows, row *orderReceiptRow) error {
	return rows.Scan(&row.OrganizationID, &row.OrderID, &row.OrderNumber, &row.Status, &row.Skipped, &row.Attempts,
		&row.LastError, &row.ShipmentID, &row.TraceID, &row.FirstReceivedAt, &row.LastReceivedAt)
}

// Claim implements ports.OrderReceiptRepository: claimReceiptSQL, then the
// receipt rehydrated from the row it returns.
func (r *OrderReceiptRepository) Claim(ctx context.Context, d domain.OrderDelivery) (*domain.OrderReceipt, error) {
	var (
		row orderReceiptRow
		n   int
	)
	err := r.run.query(ctx, claimReceiptSQL, func(rows *sql.Rows) error { n++; return scanReceipt(rows, &row) },
		d.OrganizationID, d.OrderID, d.OrderNumber, d.TraceID, d.ReceivedAt)
	if err != nil {
		return nil, dbErr(err)
	}
	if n != 1 {
		return nil, errors.New("claim order receipt: no row returned")
	}
	return row.toDomain(), nil
}

// finishReceiptSQL also sets the kept body: the delivery's after a
// failure, NULL after a success — which deletes a body an earlier failure
// kept, in the statement that records the success (no statement more).
const finishReceiptSQL = `UPDATE order_receipts
	SET status = $1, skipped = $2, last_error = $3, shipment_id = $4, payload = $7
	WHERE organization_id = $5 AND order_id = $6`

// Finish implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) Finish(ctx context.Context, rec *domain.OrderReceipt) error {
	n, err := r.run.exec(ctx, finishReceiptSQL,
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
VALUES ($1, $2, $3, 'failed', 1, $4, $5, $6, $6, $7)
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
	_, err := r.run.exec(ctx, recordFailureSQL, d.OrganizationID, d.OrderID, d.OrderNumber, code, d.TraceID, d.ReceivedAt, d.Payload)
	return dbErr(err)
}

const getReceiptSQL = `SELECT ` + receiptReadColumns + ` FROM order_receipts WHERE organization_id = $1 AND order_id = $2`

// Get implements ports.OrderReceiptRepository: domain.ErrNotFound when the
// organization has no receipt of the order.
func (r *OrderReceiptRepository) Get(ctx context.Context, organizationID string, orderID int64) (*domain.OrderReceipt, error) {
	var (
		row orderReceiptRow
		n   int
	)
	err := r.run.query(ctx, getReceiptSQL, func(rows *sql.Rows) error { n++; return scanReceiptRead(rows, &row) },
		organizationID, orderID)
	if err != nil {
		return nil, dbErr(err)
	}
	if n == 0 {
		return nil, domain.ErrNotFound
	}
	return row.toDomain(), nil
}

// ---- Kept bodies of failed orders: the list, the replay, the purge and
// the gauges (docs/storefront-intake.md, "When an order fails"). Reads
// return the body's size, octet_length(payload), which PostgreSQL reads
// from the value's header without loading it; only GetWithPayload loads a
// body.

// receiptReadColumns is receiptColumns and the kept body's size (NULL when
// none is kept), in scanReceiptRead's order.
const receiptReadColumns = receiptColumns + `, octet_length(payload)`

// scanReceiptRead reads one row of receiptReadColumns and, when more are
// given, the columns that follow.
func scanReceiptRead(rows *sql.Rows, row *orderReceiptRow, more ...any) error {
	return rows.Scan(append([]any{&row.OrganizationID, &row.OrderID, &row.OrderNumber, &row.Status, &row.Skipped,
		&row.Attempts, &row.LastError, &row.ShipmentID, &row.TraceID, &row.FirstReceivedAt, &row.LastReceivedAt,
		&row.PayloadBytes}, more...)...)
}

// listReceiptsSQL pages the organization's receipts, latest delivery first.
// A NULL filter does not filter.
const listReceiptsSQL = `SELECT ` + receiptReadColumns + `
FROM order_receipts
WHERE organization_id = $1
	AND ($2::text IS NULL OR status = $2)
	AND ($3::text IS NULL OR last_error = $3)
ORDER BY last_received_at DESC, order_id DESC
OFFSET $4 LIMIT $5`

// List implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) List(ctx context.Context, organizationID string, filter ports.ReceiptFilter,
	page ports.Page,
) ([]*domain.OrderReceipt, bool, error) {
	var out []*domain.OrderReceipt
	err := r.run.query(ctx, listReceiptsSQL, func(rows *sql.Rows) error {
		var row orderReceiptRow
		if err := scanReceiptRead(rows, &row); err != nil {
			return err
		}
		out = append(out, row.toDomain())
		return nil
	}, organizationID, nullIfEmpty(string(filter.Status)), nullIfEmpty(filter.Error), page.Skip, page.Take+1)
	if err != nil {
		return nil, false, dbErr(err)
	}
	out, more := trimPage(out, page)
	return out, more, nil
}

const getReceiptWithPayloadSQL = `SELECT ` + receiptReadColumns + `, payload FROM order_receipts
WHERE organization_id = $1 AND order_id = $2`

// GetWithPayload implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) GetWithPayload(ctx context.Context, organizationID string, orderID int64) (*domain.OrderReceipt, []byte, error) {
	var (
		row     orderReceiptRow
		payload []byte
		n       int
	)
	err := r.run.query(ctx, getReceiptWithPayloadSQL, func(rows *sql.Rows) error { n++; return scanReceiptRead(rows, &row, &payload) },
		organizationID, orderID)
	if err != nil {
		return nil, nil, dbErr(err)
	}
	if n == 0 {
		return nil, nil, domain.ErrNotFound
	}
	return row.toDomain(), payload, nil
}

// listKeptSQL walks the organization's failed orders that keep their body,
// on the partial index order_receipts_kept_idx.
const listKeptSQL = `SELECT order_id FROM order_receipts
WHERE organization_id = $1 AND payload IS NOT NULL AND status = 'failed' AND order_id > $2
ORDER BY order_id
LIMIT $3`

// ListKept implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) ListKept(ctx context.Context, organizationID string, after int64, limit int) ([]int64, error) {
	var ids []int64
	err := r.run.query(ctx, listKeptSQL, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	}, organizationID, after, limit)
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
	WHERE payload IS NOT NULL AND last_received_at < $1
	LIMIT $2
	FOR UPDATE SKIP LOCKED
)
UPDATE order_receipts AS r SET payload = NULL
FROM old
WHERE r.organization_id = old.organization_id AND r.order_id = old.order_id AND r.payload IS NOT NULL`

// PurgePayloads implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) PurgePayloads(ctx context.Context, cutoff time.Time, limit int) (int, error) {
	n, err := r.run.exec(ctx, purgePayloadsSQL, cutoff, limit)
	return int(n), dbErr(err)
}

// failedOrderStatsSQL counts, on the partial index order_receipts_kept_idx:
// its cost grows with the number of kept bodies, not with the number of
// orders.
const failedOrderStatsSQL = `SELECT coalesce(last_error, ''), count(*), min(first_received_at)
FROM order_receipts
WHERE payload IS NOT NULL AND status = 'failed'
GROUP BY 1`

// FailedOrderStats implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) FailedOrderStats(ctx context.Context) (ports.FailedOrderStats, error) {
	stats := ports.FailedOrderStats{ByCode: map[string]int{}}
	err := r.run.query(ctx, failedOrderStatsSQL, func(rows *sql.Rows) error {
		var (
			code   string
			count  int
			oldest time.Time
		)
		if err := rows.Scan(&code, &count, &oldest); err != nil {
			return err
		}
		stats.ByCode[code] = count
		if stats.Oldest.IsZero() || oldest.Before(stats.Oldest) {
			stats.Oldest = oldest.UTC()
		}
		return nil
	})
	if err != nil {
		return ports.FailedOrderStats{}, dbErr(err)
	}
	return stats, nil
}
