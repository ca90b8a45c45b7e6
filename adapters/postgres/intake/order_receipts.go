package intake

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
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

func (row orderReceiptRow) toDomain() *intake.OrderReceipt {
	return intake.RehydrateOrderReceipt(intake.OrderReceiptParams{
		OrganizationID: row.OrganizationID, OrderID: row.OrderID, OrderNumber: row.OrderNumber,
		Status: intake.ReceiptStatus(row.Status), Skipped: intake.SkipReason(postgres.Deref(row.Skipped)), Attempts: row.Attempts,
		LastError: postgres.Deref(row.LastError), ShipmentID: postgres.Deref(row.ShipmentID), TraceID: row.TraceID,
		FirstReceived: row.FirstReceivedAt, LastReceived: row.LastReceivedAt, PayloadBytes: row.PayloadBytes,
	})
}

// OrderReceiptRepository implements intakeports.OrderReceiptRepository.
type OrderReceiptRepository struct {
	run    postgres.Runner
	events *postgres.TxEvents // the unit of work's events, which Accept may write
}

var _ intakeports.OrderReceiptRepository = (*OrderReceiptRepository)(nil)

// receiptColumns is what every statement returns, in scanReceipt's order.
const receiptColumns = `organization_id, order_id, order_number, status, skipped, attempts, last_error,
	shipment_id, trace_id, first_received_at, last_received_at`

// claimOrderSQL is the order intake's first statement: it claims the
// order's receipt and reads what the intake needs to know before it writes,
// in one round trip.
//
// The claim inserts the receipt or, when it exists, updates it — which takes
// the row lock, waiting for a concurrent holder to commit. Under READ
// COMMITTED, ON CONFLICT DO UPDATE acts on the latest committed version of
// the row even when the statement's snapshot predates it, so a delivery that
// waited sees the outcome of the one it waited for. The SET is
// intake.ClaimOrderReceipt written in SQL (a succeeded receipt keeps its
// state: only the time of the last delivery moves).
//
// The reads (intakeports.OrderResolution): the organization's product of each SKU
// of $6 — one probe of the (organization_id, sku) index each: the LATERAL
// subquery's LIMIT keeps the planner from turning the lookup into a join
// that reads every product of the organization — and its warehouse: the
// default one when set and active (two primary-key lookups), else, and only
// then, its first active one by name then ID. The reads see the database as
// the statement began, which for a delivery that waited for a concurrent one
// is when it began to wait (READ COMMITTED allows either). The statement
// returns the claimed receipt once per product found (once with NULLs when
// none is), with the warehouse's ID and name, NULL when there is none.
const claimOrderSQL postgres.SQLSelect = `WITH claimed AS (
	INSERT INTO order_receipts AS r
		(organization_id, order_id, order_number, status, attempts, trace_id, first_received_at, last_received_at)
	VALUES ($1, $2, $3, 'processing', 1, $4, $5, $5)
	ON CONFLICT (organization_id, order_id) DO UPDATE SET
		last_received_at = greatest(r.last_received_at, excluded.last_received_at),
		order_number     = coalesce(r.order_number, excluded.order_number),
		status           = CASE WHEN r.status = 'succeeded' THEN r.status ELSE 'processing' END,
		attempts         = CASE WHEN r.status = 'succeeded' THEN r.attempts ELSE r.attempts + 1 END,
		trace_id         = CASE WHEN r.status = 'succeeded' THEN r.trace_id ELSE excluded.trace_id END
	RETURNING ` + receiptColumns + `
), product AS (
	SELECT p.id, p.sku, p.name
	FROM unnest($6::text[]) AS s(sku)
	CROSS JOIN LATERAL (
		SELECT p.id, p.sku, p.name FROM products AS p WHERE p.organization_id = $1 AND p.sku = s.sku LIMIT 1
	) AS p
), warehouse AS (
	SELECT w.id, w.name FROM organizations AS o
	JOIN warehouses AS w ON w.id = o.default_warehouse_id AND w.active
	WHERE o.id = $1
	UNION ALL
	(SELECT w.id, w.name FROM warehouse_organizations AS wo
	JOIN warehouses AS w ON w.id = wo.warehouse_id AND w.active
	WHERE wo.organization_id = $1
	ORDER BY w.name, w.id
	LIMIT 1)
	LIMIT 1
)
SELECT claimed.*, product.id, product.sku, product.name, warehouse.id, warehouse.name
FROM claimed
LEFT JOIN product ON true
LEFT JOIN warehouse ON true`

// Claim implements intakeports.OrderReceiptRepository: claimOrderSQL, then the
// receipt rehydrated from the row it returns and what it read.
func (r *OrderReceiptRepository) Claim(ctx context.Context, d intake.OrderDelivery, skus []string) (*intake.OrderReceipt, intakeports.OrderResolution, error) {
	var (
		row orderReceiptRow
		n   int
		res = intakeports.OrderResolution{Products: make(map[string]shipping.InventoryItem, len(skus))}
	)
	err := r.run.Query(ctx, claimOrderSQL, func(rows *sql.Rows) error {
		n++
		var productID, sku, name, warehouseID, warehouseName sql.NullString
		if err := scanReceipt(rows, &row, &productID, &sku, &name, &warehouseID, &warehouseName); err != nil {
			return err
		}
		if productID.Valid {
			res.Products[sku.String] = shipping.InventoryItem{ID: productID.String, OrganizationID: d.OrganizationID,
				Kind: shipping.KindProduct, SKU: sku.String, Name: name.String}
		}
		if warehouseID.Valid {
			res.Warehouse = &domain.WarehouseRef{ID: warehouseID.String, Name: warehouseName.String}
		}
		return nil
	}, d.OrganizationID, d.OrderID, d.OrderNumber, d.TraceID, d.ReceivedAt, postgres.Array(skus))
	if err != nil {
		return nil, intakeports.OrderResolution{}, postgres.DBErr(err)
	}
	if n == 0 {
		return nil, intakeports.OrderResolution{}, errors.New("claim order receipt: no row returned")
	}
	return row.toDomain(), res, nil
}

// scanReceipt reads one row of receiptColumns and, when more are given, the
// columns that follow.
func scanReceipt(rows *sql.Rows, row *orderReceiptRow, more ...any) error {
	return rows.Scan(append([]any{&row.OrganizationID, &row.OrderID, &row.OrderNumber, &row.Status, &row.Skipped,
		&row.Attempts, &row.LastError, &row.ShipmentID, &row.TraceID, &row.FirstReceivedAt, &row.LastReceivedAt},
		more...)...)
}

// finishReceiptSQL also sets the kept body: the delivery's after a
// failure, NULL after a success — which deletes a body an earlier failure
// kept, in the statement that records the success (no statement more).
const finishReceiptSQL postgres.SQLUpdate = `UPDATE order_receipts
	SET status = $1, skipped = $2, last_error = $3, shipment_id = $4, payload = $7
	WHERE organization_id = $5 AND order_id = $6`

// Finish implements intakeports.OrderReceiptRepository.
func (r *OrderReceiptRepository) Finish(ctx context.Context, rec *intake.OrderReceipt) error {
	n, err := r.run.Exec(ctx, finishReceiptSQL,
		string(rec.Status()), postgres.NullIfEmpty(string(rec.Skipped())), postgres.NullIfEmpty(rec.LastError()), postgres.NullIfEmpty(rec.ShipmentID()),
		rec.OrganizationID(), rec.OrderID(), rec.Payload())
	if err != nil {
		return postgres.DBErr(err)
	}
	if n != 1 {
		return errors.New("finish order receipt: the claimed receipt is gone")
	}
	return nil
}

// acceptOrderSQL is the order intake's second statement when it makes a
// shipment: what InventoryRepository.Reserve (reserveProductsSQL),
// ShipmentRepository.Create (insertShipmentSQL, insertShipmentItemsSQL)
// and Finish do, as the data-modifying CTEs of the receipt's UPDATE, in one
// round trip — the same statements, from the same constants, with
// shipmentArgs' parameters $1 … $24. The stock rows are made when missing
// and locked in product order, the order of every reservation. The receipt
// keeps the last error of an earlier attempt ($25), as Finish stores it.
// The foreign keys between the new rows are checked at the statement's
// end, when all are there. It affects one row, the receipt's. Its whole
// text, as it runs: testdata/statements.golden (a test keeps it current).
const acceptOrderSQL postgres.SQLUpdate = `WITH ` + acceptOrderCTEs

// acceptOrderWithEventSQL is acceptOrderSQL writing the transaction's event
// too (shipment.created, $27 … $32): with events on, the intake's success
// path runs no statement more.
const acceptOrderWithEventSQL postgres.SQLUpdate = `WITH ` + postgres.InsertEventCTE + `, ` + acceptOrderCTEs

// acceptOrderCTEs is acceptOrderSQL after its WITH.
const acceptOrderCTEs = `reserved AS (
	` + pgshipping.ReserveProductsSQL + `
), new_shipment AS (
	` + pgshipping.InsertShipmentSQL + `
), new_items AS (
	` + pgshipping.InsertShipmentItemsSQL + `
)
UPDATE order_receipts SET status = 'succeeded', skipped = NULL, last_error = $25, shipment_id = $5, payload = NULL
WHERE organization_id = $4 AND order_id = $26`

// Accept implements intakeports.OrderReceiptRepository with acceptOrderSQL.
func (r *OrderReceiptRepository) Accept(ctx context.Context, rec *intake.OrderReceipt, s *shipping.Shipment) error {
	if s.Kind() != shipping.PickPack || s.Status() != shipping.ShipmentPending ||
		rec.Status() != intake.ReceiptSucceeded || rec.ShipmentID() != s.ID() || rec.OrganizationID() != s.OrganizationID() {
		return errors.New("accept order: not a pending Pick & Pack shipment of the receipt's success")
	}
	text, args := postgres.Statement(acceptOrderSQL), append(pgshipping.ShipmentArgs(s), postgres.NullIfEmpty(rec.LastError()), rec.OrderID())
	if ev := r.events.TakeOne(); ev != nil {
		text, args = acceptOrderWithEventSQL, append(args, ev.Args()...)
	}
	n, err := r.run.Exec(ctx, text, args...)
	if err != nil {
		return postgres.DBErr(err)
	}
	if n != 1 {
		return errors.New("accept order: the claimed receipt is gone")
	}
	return nil
}

// recordFailureSQL is intake.RecordFailedDelivery in one statement: a
// failed attempt counted, its body kept, a succeeded receipt left alone
// (the WHERE of DO UPDATE).
const recordFailureSQL postgres.SQLInsert = `INSERT INTO order_receipts AS r
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
WHERE r.status <> 'succeeded'
RETURNING ` + receiptReadColumns

// RecordFailure implements intakeports.OrderReceiptRepository.
func (r *OrderReceiptRepository) RecordFailure(ctx context.Context, d intake.OrderDelivery, code string) (*intake.OrderReceipt, error) {
	var rec *intake.OrderReceipt
	err := r.run.Query(ctx, recordFailureSQL, func(rows *sql.Rows) error {
		var row orderReceiptRow
		if err := scanReceiptRead(rows, &row); err != nil {
			return err
		}
		rec = row.toDomain()
		return nil
	}, d.OrganizationID, d.OrderID, d.OrderNumber, code, d.TraceID, d.ReceivedAt, d.Payload)
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	return rec, nil
}

const getReceiptSQL postgres.SQLSelect = `SELECT ` + receiptReadColumns + ` FROM order_receipts WHERE organization_id = $1 AND order_id = $2`

// Get implements intakeports.OrderReceiptRepository: domain.ErrNotFound when the
// organization has no receipt of the order.
func (r *OrderReceiptRepository) Get(ctx context.Context, organizationID string, orderID int64) (*intake.OrderReceipt, error) {
	var (
		row orderReceiptRow
		n   int
	)
	err := r.run.Query(ctx, getReceiptSQL, func(rows *sql.Rows) error { n++; return scanReceiptRead(rows, &row) },
		organizationID, orderID)
	if err != nil {
		return nil, postgres.DBErr(err)
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
	return scanReceipt(rows, row, append([]any{&row.PayloadBytes}, more...)...)
}

// listReceiptsSQL pages the organization's receipts, latest delivery first.
// A NULL filter does not filter.
const listReceiptsSQL postgres.SQLSelect = `SELECT ` + receiptReadColumns + `
FROM order_receipts
WHERE organization_id = $1
	AND ($2::text IS NULL OR status = $2)
	AND ($3::text IS NULL OR last_error = $3)
ORDER BY last_received_at DESC, order_id DESC
OFFSET $4 LIMIT $5`

// List implements intakeports.OrderReceiptRepository.
func (r *OrderReceiptRepository) List(ctx context.Context, organizationID string, filter intakeports.ReceiptFilter,
	page ports.Page,
) ([]*intake.OrderReceipt, bool, error) {
	var out []*intake.OrderReceipt
	err := r.run.Query(ctx, listReceiptsSQL, func(rows *sql.Rows) error {
		var row orderReceiptRow
		if err := scanReceiptRead(rows, &row); err != nil {
			return err
		}
		out = append(out, row.toDomain())
		return nil
	}, organizationID, postgres.NullIfEmpty(string(filter.Status)), postgres.NullIfEmpty(filter.Error), page.Skip, page.Take+1)
	if err != nil {
		return nil, false, postgres.DBErr(err)
	}
	out, more := postgres.TrimPage(out, page)
	return out, more, nil
}

const getReceiptWithPayloadSQL postgres.SQLSelect = `SELECT ` + receiptReadColumns + `, payload FROM order_receipts
WHERE organization_id = $1 AND order_id = $2`

// GetWithPayload implements intakeports.OrderReceiptRepository.
func (r *OrderReceiptRepository) GetWithPayload(ctx context.Context, organizationID string, orderID int64) (*intake.OrderReceipt, []byte, error) {
	var (
		row     orderReceiptRow
		payload []byte
		n       int
	)
	err := r.run.Query(ctx, getReceiptWithPayloadSQL, func(rows *sql.Rows) error { n++; return scanReceiptRead(rows, &row, &payload) },
		organizationID, orderID)
	if err != nil {
		return nil, nil, postgres.DBErr(err)
	}
	if n == 0 {
		return nil, nil, domain.ErrNotFound
	}
	return row.toDomain(), payload, nil
}

// listKeptSQL walks the organization's failed orders that keep their body,
// on the partial index order_receipts_kept_idx.
const listKeptSQL postgres.SQLSelect = `SELECT order_id FROM order_receipts
WHERE organization_id = $1 AND payload IS NOT NULL AND status = 'failed' AND order_id > $2
  AND ($4 = '' OR last_error = $4)
ORDER BY order_id
LIMIT $3`

// ListKept implements intakeports.OrderReceiptRepository.
func (r *OrderReceiptRepository) ListKept(ctx context.Context, organizationID, code string, after int64, limit int) ([]int64, error) {
	var ids []int64
	err := r.run.Query(ctx, listKeptSQL, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	}, organizationID, after, limit, code)
	return ids, postgres.DBErr(err)
}

// purgePayloadsSQL deletes a batch of kept bodies past retention. SKIP
// LOCKED leaves rows that another purge, or a delivery in flight, holds:
// replicas purging at once share the work without waiting, and a delivery
// is never held up by a purge. The batch is chosen once (MATERIALIZED),
// and the UPDATE checks the body again, so that a row another purge
// emptied between the two is neither emptied again nor counted twice.
const purgePayloadsSQL postgres.SQLUpdate = `WITH old AS MATERIALIZED (
	SELECT organization_id, order_id FROM order_receipts
	WHERE payload IS NOT NULL AND last_received_at < $1
	LIMIT $2
	FOR UPDATE SKIP LOCKED
)
UPDATE order_receipts AS r SET payload = NULL
FROM old
WHERE r.organization_id = old.organization_id AND r.order_id = old.order_id AND r.payload IS NOT NULL`

// PurgePayloads implements intakeports.OrderReceiptRepository.
func (r *OrderReceiptRepository) PurgePayloads(ctx context.Context, cutoff time.Time, limit int) (int, error) {
	n, err := r.run.Exec(ctx, purgePayloadsSQL, cutoff, limit)
	return int(n), postgres.DBErr(err)
}

// failedOrderStatsSQL counts, on the partial index order_receipts_kept_idx:
// its cost grows with the number of kept bodies, not with the number of
// orders.
const failedOrderStatsSQL postgres.SQLSelect = `SELECT coalesce(last_error, ''), count(*), min(first_received_at)
FROM order_receipts
WHERE payload IS NOT NULL AND status = 'failed'
GROUP BY 1`

// FailedOrderStats implements intakeports.OrderReceiptRepository.
func (r *OrderReceiptRepository) FailedOrderStats(ctx context.Context) (intakeports.FailedOrderStats, error) {
	stats := intakeports.FailedOrderStats{ByCode: map[string]int{}}
	err := r.run.Query(ctx, failedOrderStatsSQL, func(rows *sql.Rows) error {
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
		return intakeports.FailedOrderStats{}, postgres.DBErr(err)
	}
	return stats, nil
}
