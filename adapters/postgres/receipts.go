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
}

func (row orderReceiptRow) toDomain() *domain.OrderReceipt {
	return domain.RehydrateOrderReceipt(domain.OrderReceiptParams{
		OrganizationID: row.OrganizationID, OrderID: row.OrderID, OrderNumber: row.OrderNumber,
		Status: domain.ReceiptStatus(row.Status), Skipped: domain.SkipReason(deref(row.Skipped)), Attempts: row.Attempts,
		LastError: deref(row.LastError), ShipmentID: deref(row.ShipmentID), TraceID: row.TraceID,
		FirstReceived: row.FirstReceivedAt, LastReceived: row.LastReceivedAt,
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

const finishReceiptSQL = `UPDATE order_receipts
	SET status = $1, skipped = $2, last_error = $3, shipment_id = $4
	WHERE organization_id = $5 AND order_id = $6`

// Finish implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) Finish(ctx context.Context, rec *domain.OrderReceipt) error {
	n, err := r.run.exec(ctx, finishReceiptSQL,
		string(rec.Status()), nullIfEmpty(string(rec.Skipped())), nullIfEmpty(rec.LastError()), nullIfEmpty(rec.ShipmentID()),
		rec.OrganizationID(), rec.OrderID())
	if err != nil {
		return dbErr(err)
	}
	if n != 1 {
		return errors.New("finish order receipt: the claimed receipt is gone")
	}
	return nil
}

// recordFailureSQL is domain.RecordFailedDelivery in one statement: a
// failed attempt counted, a succeeded receipt left alone (the WHERE of DO
// UPDATE).
const recordFailureSQL = `INSERT INTO order_receipts AS r
	(organization_id, order_id, order_number, status, attempts, last_error, trace_id, first_received_at, last_received_at)
VALUES ($1, $2, $3, 'failed', 1, $4, $5, $6, $6)
ON CONFLICT (organization_id, order_id) DO UPDATE SET
	status           = 'failed',
	attempts         = r.attempts + 1,
	last_error       = excluded.last_error,
	trace_id         = excluded.trace_id,
	order_number     = coalesce(r.order_number, excluded.order_number),
	last_received_at = greatest(r.last_received_at, excluded.last_received_at)
WHERE r.status <> 'succeeded'`

// RecordFailure implements ports.OrderReceiptRepository.
func (r *OrderReceiptRepository) RecordFailure(ctx context.Context, d domain.OrderDelivery, code string) error {
	_, err := r.run.exec(ctx, recordFailureSQL, d.OrganizationID, d.OrderID, d.OrderNumber, code, d.TraceID, d.ReceivedAt)
	return dbErr(err)
}

const getReceiptSQL = `SELECT ` + receiptColumns + ` FROM order_receipts WHERE organization_id = $1 AND order_id = $2`

// Get implements ports.OrderReceiptRepository: domain.ErrNotFound when the
// organization has no receipt of the order.
func (r *OrderReceiptRepository) Get(ctx context.Context, organizationID string, orderID int64) (*domain.OrderReceipt, error) {
	var (
		row orderReceiptRow
		n   int
	)
	err := r.run.query(ctx, getReceiptSQL, func(rows *sql.Rows) error { n++; return scanReceipt(rows, &row) },
		organizationID, orderID)
	if err != nil {
		return nil, dbErr(err)
	}
	if n == 0 {
		return nil, domain.ErrNotFound
	}
	return row.toDomain(), nil
}
