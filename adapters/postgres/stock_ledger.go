package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// StockLedger implements ports.StockLedger on stock_movements and the
// balances of product_stock and carton_stock: every change of on hand goes
// through Move, so that a balance is always the sum of its movements.
type StockLedger struct {
	run runner
}

var _ ports.StockLedger = (*StockLedger)(nil)

// moveStockSQL applies one change of on hand ($1 organization, $2
// warehouse, $3 reason, $4 receipt or empty, $5 shipment or empty, $6 time; $7
// kinds, $8 item IDs, $9 signed quantities): one movement per delta, and
// each item's balance raised or lowered by its summed deltas, the missing
// balances made. The balances are upserted in item order, the lock order of
// every statement that changes stock. The proposed row of an upsert is
// checked before its conflict is found, so it carries max(delta, 0) and the
// update adds the real delta from the grouped deltas; a balance that would
// go below zero fails the tables' CHECK (on_hand >= 0). The statement
// returns how many balances it had to make for a negative delta: there was
// nothing to take from, and the caller refuses the change.
const moveStockSQL = `WITH deltas AS (
	SELECT v.kind, v.item, v.quantity FROM unnest($7::text[], $8::text[], $9::bigint[]) AS v(kind, item, quantity)
), sums AS (
	SELECT kind, item, sum(quantity)::bigint AS quantity FROM deltas GROUP BY kind, item
), movements AS (
	INSERT INTO stock_movements (organization_id, warehouse_id, product_id, carton_id, quantity, reason,
		receipt_id, shipment_id, occurred_at)
	SELECT $1, $2, CASE WHEN d.kind = 'product' THEN d.item END, CASE WHEN d.kind = 'carton' THEN d.item END,
		d.quantity, $3, nullif($4, ''), nullif($5, ''), $6
	FROM deltas AS d
), products AS (
	INSERT INTO product_stock AS s (product_id, warehouse_id, on_hand, reserved)
	SELECT item, $2, greatest(quantity, 0), 0 FROM sums WHERE kind = 'product' ORDER BY item
	ON CONFLICT (product_id, warehouse_id) DO UPDATE
		SET on_hand = s.on_hand + (SELECT quantity FROM sums WHERE kind = 'product' AND item = excluded.product_id)
	RETURNING product_id AS item, xmax = 0 AS made
), cartons AS (
	INSERT INTO carton_stock AS s (carton_id, warehouse_id, on_hand, reserved)
	SELECT item, $2, greatest(quantity, 0), 0 FROM sums WHERE kind = 'carton' ORDER BY item
	ON CONFLICT (carton_id, warehouse_id) DO UPDATE
		SET on_hand = s.on_hand + (SELECT quantity FROM sums WHERE kind = 'carton' AND item = excluded.carton_id)
	RETURNING carton_id AS item, xmax = 0 AS made
)
SELECT (SELECT count(*) FROM products AS p JOIN sums ON sums.kind = 'product' AND sums.item = p.item WHERE p.made AND sums.quantity < 0)
	+ (SELECT count(*) FROM cartons AS c JOIN sums ON sums.kind = 'carton' AND sums.item = c.item WHERE c.made AND sums.quantity < 0)`

// Move implements ports.StockLedger in one statement. A balance that would
// go below zero (or, for cartons, below what is reserved) is
// domain.ErrNegativeStock, and the statement changes
// nothing (the caller's transaction rolls back).
func (l *StockLedger) Move(ctx context.Context, c domain.StockChange) error {
	if len(c.Deltas) == 0 {
		return nil
	}
	kinds := make([]string, len(c.Deltas))
	items := make([]string, len(c.Deltas))
	qty := make([]int64, len(c.Deltas))
	for i, d := range c.Deltas {
		kinds[i], items[i], qty[i] = string(d.Kind), d.ItemID, d.Quantity
	}
	var made int64
	err := l.run.query(ctx, moveStockSQL, func(rows *sql.Rows) error { return rows.Scan(&made) },
		c.OrganizationID, c.WarehouseID, string(c.Reason), c.ReceiptID, c.ShipmentID, c.OccurredAt,
		pgArray(kinds), pgArray(items), pgArray(qty))
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) && pgErr.Field('C') == "23514" && (pgErr.Field('t') == "product_stock" || pgErr.Field('t') == "carton_stock") {
		// on_hand >= 0, and for cartons reserved <= on_hand
		return fmt.Errorf("%w: %s", domain.ErrNegativeStock, pgErr.Field('M'))
	}
	if err != nil {
		return dbErr(err)
	}
	if made > 0 {
		return fmt.Errorf("%w: %d item(s) held none at warehouse %s", domain.ErrNegativeStock, made, c.WarehouseID)
	}
	return nil
}

// onHandAtSQL sums the organization's ($1) movements strictly before $2 per
// warehouse and item (stock_movements_organization_time_idx), leaving out
// the items that held none.
const onHandAtSQL = `SELECT warehouse_id, CASE WHEN product_id IS NULL THEN 'carton' ELSE 'product' END AS kind,
	coalesce(product_id, carton_id) AS item, sum(quantity)::bigint
FROM stock_movements
WHERE organization_id = $1 AND occurred_at < $2
GROUP BY warehouse_id, product_id, carton_id
HAVING sum(quantity) <> 0
ORDER BY warehouse_id, kind, item`

// OnHandAt implements ports.StockLedger.
func (l *StockLedger) OnHandAt(ctx context.Context, organizationID string, at time.Time) ([]domain.OnHand, error) {
	out := []domain.OnHand{}
	err := l.run.query(ctx, onHandAtSQL, func(rows *sql.Rows) error {
		var o domain.OnHand
		var kind string
		if err := rows.Scan(&o.WarehouseID, &kind, &o.ItemID, &o.Quantity); err != nil {
			return err
		}
		o.Kind = domain.ItemKind(kind)
		out = append(out, o)
		return nil
	}, organizationID, at)
	if err != nil {
		return nil, dbErr(err)
	}
	return out, nil
}
