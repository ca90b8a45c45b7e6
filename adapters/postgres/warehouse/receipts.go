package warehouse

import (
	"context"
	"database/sql"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// ReceiptRepository implements warehouseports.ReceiptRepository.
type ReceiptRepository struct {
	run postgres.Runner
}

var _ warehouseports.ReceiptRepository = (*ReceiptRepository)(nil)

// createReceiptSQL inserts a receipt ($1 … $7) and its lines ($8 product
// IDs or empty, $9 carton IDs or empty, $10 quantities), unless the warehouse has
// a receipt under the reference: the unique (warehouse_id, reference) makes
// a second insert wait for the first's transaction, then do nothing. It
// returns 1 when it inserted, 0 when it did not.
const createReceiptSQL postgres.SQLSelect = `WITH receipt AS (
	INSERT INTO warehouse_receipts (id, warehouse_id, organization_id, reference, received_at, received_at_given, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT (warehouse_id, reference) DO NOTHING
	RETURNING id
), lines AS (
	INSERT INTO warehouse_receipt_lines (receipt_id, organization_id, position, product_id, carton_id, quantity)
	SELECT receipt.id, $3, (v.position - 1)::int, nullif(v.product, ''), nullif(v.carton, ''), v.quantity
	FROM receipt, unnest($8::text[], $9::text[], $10::bigint[]) WITH ORDINALITY AS v(product, carton, quantity, position)
)
SELECT count(*) FROM receipt`

// receiptByReferenceSQL reads the receipt of warehouse $1 under reference
// $2 with its lines and their SKUs, in line order.
const receiptByReferenceSQL postgres.SQLSelect = `SELECT r.id, r.organization_id, r.received_at, r.received_at_given, r.created_at,
	coalesce(l.product_id, ''), coalesce(l.carton_id, ''), coalesce(p.sku, c.sku, ''), l.quantity
FROM warehouse_receipts AS r
JOIN warehouse_receipt_lines AS l ON l.receipt_id = r.id
LEFT JOIN products AS p ON p.id = l.product_id
LEFT JOIN cartons AS c ON c.id = l.carton_id
WHERE r.warehouse_id = $1 AND r.reference = $2
ORDER BY l.position`

// Create implements warehouseports.ReceiptRepository: the insert, and when
// the reference was taken, the receipt that took it (a second statement,
// which at READ COMMITTED sees the winner's committed row).
func (r *ReceiptRepository) Create(ctx context.Context, rec *warehouse.Receipt) (*warehouse.Receipt, bool, error) {
	lines := rec.Lines()
	products := make([]string, len(lines))
	cartons := make([]string, len(lines))
	qty := make([]int64, len(lines))
	for i, l := range lines {
		if l.Kind == shipping.KindCarton {
			cartons[i] = l.ItemID
		} else {
			products[i] = l.ItemID
		}
		qty[i] = l.Quantity
	}
	var inserted int64
	err := r.run.Query(ctx, createReceiptSQL, func(rows *sql.Rows) error { return rows.Scan(&inserted) },
		rec.ID(), rec.WarehouseID(), rec.OrganizationID(), rec.Reference(), rec.ReceivedAt(), rec.ReceivedAtGiven(),
		rec.CreatedAt(), postgres.Array(products), postgres.Array(cartons), postgres.Array(qty))
	if err != nil {
		return nil, false, postgres.DBErr(err)
	}
	if inserted == 1 {
		return rec, true, nil
	}
	stored, err := r.byReference(ctx, rec.WarehouseID(), rec.Reference())
	return stored, false, err
}

// redateReceiptSQL moves receipt $1 of organization $2 and its movements
// from $3 to $4 (receivedAt; createdAt $5); the movements are found by the
// organization's time index.
const redateReceiptSQL postgres.SQLUpdate = `WITH receipt AS (
	UPDATE warehouse_receipts SET received_at = $4, created_at = $5 WHERE id = $1
)
UPDATE stock_movements SET occurred_at = $4
WHERE organization_id = $2 AND occurred_at = $3 AND receipt_id = $1`

// Redate implements warehouseports.ReceiptRepository.
func (r *ReceiptRepository) Redate(ctx context.Context, rec *warehouse.Receipt, was time.Time) error {
	_, err := r.run.Exec(ctx, redateReceiptSQL, rec.ID(), rec.OrganizationID(), was, rec.ReceivedAt(), rec.CreatedAt())
	return postgres.DBErr(err)
}

func (r *ReceiptRepository) byReference(ctx context.Context, warehouseID, reference string) (*warehouse.Receipt, error) {
	var p warehouse.RehydrateReceiptParams
	err := r.run.Query(ctx, receiptByReferenceSQL, func(rows *sql.Rows) error {
		var product, carton string
		var l warehouse.ReceiptLine
		var receivedAt, createdAt time.Time
		if err := rows.Scan(&p.ID, &p.OrganizationID, &receivedAt, &p.ReceivedAtGiven, &createdAt,
			&product, &carton, &l.SKU, &l.Quantity); err != nil {
			return err
		}
		p.ReceivedAt, p.CreatedAt = receivedAt, createdAt
		l.Kind, l.ItemID = shipping.KindProduct, product
		if carton != "" {
			l.Kind, l.ItemID = shipping.KindCarton, carton
		}
		p.Lines = append(p.Lines, l)
		return nil
	}, warehouseID, reference)
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	if p.ID == "" {
		return nil, domain.ErrNotFound // the receipt that took the reference is gone: cannot be (no deletes)
	}
	p.WarehouseID, p.Reference = warehouseID, reference
	return warehouse.RehydrateReceipt(p), nil
}
