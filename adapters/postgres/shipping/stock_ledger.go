package shipping

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// StockLedger implements shippingports.StockLedger on stock_movements and the
// balances of product_stock and carton_stock: every change of on hand goes
// through Move, so that a balance is always the sum of its movements.
type StockLedger struct {
	run postgres.Runner
}

var _ shippingports.StockLedger = (*StockLedger)(nil)

// movementsCTE is the one place that writes the stock ledger: a CTE
// inserting, as movements, the rows of a CTE named moves that the
// statement defines before it (organization_id, warehouse_id, product_id,
// carton_id, quantity, reason, receipt_id, shipment_id, occurred_at). Every
// statement that changes on hand ends its CTEs with it: Move's (receipts
// and ships) and the seed's opening balances (insertStockSQL).
const movementsCTE = `movements AS (
	INSERT INTO stock_movements (organization_id, warehouse_id, product_id, carton_id, quantity, reason,
		receipt_id, shipment_id, occurred_at)
	SELECT organization_id, warehouse_id, product_id, carton_id, quantity, reason, receipt_id, shipment_id, occurred_at
	FROM moves
)`

// moveStockSQL applies one change of on hand ($1 organization, $2
// warehouse, $3 reason, $4 receipt or empty, $5 shipment or empty, $6 time;
// $7 kinds, $8 item IDs, $9 signed quantities; $10 whether what is taken
// was reserved) in one round trip. The existing balances of the items are
// locked first, products then cartons, each in item order (the lock order
// of every statement that changes stock: reservations lock in item order
// too). An item whose summed deltas would take its balance (none: zero)
// below zero is short; when any is, nothing is written and the statement
// returns the short items with their SKUs, what was asked and what is on
// hand; so, with 'over' instead of 'short' (the short ones first), for
// items a receipt would take past warehouse.MaxOnHand: the balances are
// locked, so concurrent receipts each see what the one before added.
// Otherwise it returns no row: one movement per delta, and each
// item's balance raised or lowered by its summed deltas (reserved lowered
// as much as on hand for $10, never below zero), the missing balances
// made. The proposed row of an upsert is checked before its conflict is
// found, so it carries max(delta, 0) and the update adds the real delta.
var moveStockSQL = postgres.SQLSelect(`WITH deltas AS (
	SELECT v.kind, v.item, v.quantity FROM unnest($7::text[], $8::text[], $9::bigint[]) AS v(kind, item, quantity)
), sums AS (
	SELECT kind, item, sum(quantity)::bigint AS quantity FROM deltas GROUP BY kind, item
), held_products AS (
	SELECT s.product_id AS item, s.on_hand FROM product_stock AS s
	WHERE s.warehouse_id = $2 AND s.product_id = ANY($8::text[])
	ORDER BY s.product_id FOR UPDATE
), held_cartons AS (
	SELECT s.carton_id AS item, s.on_hand FROM carton_stock AS s
	WHERE s.warehouse_id = $2 AND s.carton_id = ANY($8::text[])
	ORDER BY s.carton_id FOR UPDATE
), held AS (
	SELECT 'product' AS kind, item, on_hand FROM held_products
	UNION ALL SELECT 'carton', item, on_hand FROM held_cartons
), short AS (
	SELECT sums.kind, sums.item, -sums.quantity AS requested, coalesce(held.on_hand, 0) AS on_hand
	FROM sums LEFT JOIN held ON held.kind = sums.kind AND held.item = sums.item
	WHERE coalesce(held.on_hand, 0) + sums.quantity < 0
), over AS (
	SELECT sums.kind, sums.item, sums.quantity AS requested, coalesce(held.on_hand, 0) AS on_hand
	FROM sums LEFT JOIN held ON held.kind = sums.kind AND held.item = sums.item
	WHERE sums.quantity > 0 AND coalesce(held.on_hand, 0)::numeric + sums.quantity > ` + maxOnHand + `
), refused AS (
	SELECT 'short' AS why, kind, item, requested, on_hand FROM short
	UNION ALL SELECT 'over', kind, item, requested, on_hand FROM over
), moves AS (
	SELECT $1::text AS organization_id, $2::text AS warehouse_id,
		CASE WHEN d.kind = 'product' THEN d.item END AS product_id, CASE WHEN d.kind = 'carton' THEN d.item END AS carton_id,
		d.quantity, $3::text AS reason, nullif($4::text, '') AS receipt_id, nullif($5::text, '') AS shipment_id,
		$6::timestamptz AS occurred_at
	FROM deltas AS d WHERE NOT EXISTS (SELECT FROM refused)
), ` + movementsCTE + `, product_balances AS (
	` + stockBalances(shipping.KindProduct) + `
), carton_balances AS (
	` + stockBalances(shipping.KindCarton) + `
)
SELECT r.why, r.kind, r.item,
	coalesce(CASE WHEN r.kind = 'product' THEN (SELECT p.sku FROM products AS p WHERE p.id = r.item)
		ELSE (SELECT c.sku FROM cartons AS c WHERE c.id = r.item) END, ''),
	r.requested, r.on_hand
FROM refused AS r
ORDER BY r.why DESC, r.kind DESC, r.item`)

// maxOnHand is warehouse.MaxOnHand in SQL; the stock tables' CHECKs hold
// the same bound (migration 0018).
var maxOnHand = strconv.FormatInt(warehouse.MaxOnHand, 10)

// stockBalances is moveStockSQL's upsert of the balances of one kind of
// item by their summed deltas (sums), unless an item is short.
func stockBalances(kind shipping.ItemKind) string {
	table, column := stockTable(kind)
	return `INSERT INTO ` + table + ` AS s (organization_id, ` + column + `, warehouse_id, on_hand, reserved)
	SELECT $1, item, $2, greatest(quantity, 0), 0 FROM sums WHERE kind = '` + string(kind) + `' AND NOT EXISTS (SELECT FROM refused) ORDER BY item
	ON CONFLICT (` + column + `, warehouse_id) DO UPDATE
		SET on_hand = s.on_hand + (SELECT quantity FROM sums WHERE kind = '` + string(kind) + `' AND item = excluded.` + column + `),
			reserved = CASE WHEN $10::boolean
				THEN greatest(s.reserved + least((SELECT quantity FROM sums WHERE kind = '` + string(kind) + `' AND item = excluded.` + column + `), 0), 0)
				ELSE s.reserved END`
}

// Move implements shippingports.StockLedger in one statement. Items that would go
// below zero on hand are a *shipping.OnHandShortageError listing each (it is
// shipping.ErrNegativeStock), and nothing changes; a carton taken below what
// is reserved (carton_stock's CHECK) is shipping.ErrNegativeStock too, and
// the caller's transaction rolls back.
func (l *StockLedger) Move(ctx context.Context, c shipping.StockChange) error {
	if len(c.Deltas) == 0 {
		return nil
	}
	kinds := make([]string, len(c.Deltas))
	items := make([]string, len(c.Deltas))
	qty := make([]int64, len(c.Deltas))
	for i, d := range c.Deltas {
		kinds[i], items[i], qty[i] = string(d.Kind), d.ItemID, d.Quantity
	}
	var short *shipping.OnHandShortageError
	var over *warehouse.OnHandBoundError
	err := l.run.Query(ctx, moveStockSQL, func(rows *sql.Rows) error {
		var why, kind string
		var it shipping.StockShortage
		if err := rows.Scan(&why, &kind, &it.ItemID, &it.SKU, &it.Requested, &it.Available); err != nil {
			return err
		}
		switch {
		case why == "over":
			if over == nil {
				over = &warehouse.OnHandBoundError{}
			}
			over.Items = append(over.Items, warehouse.OnHandOver{Kind: shipping.ItemKind(kind), ItemID: it.ItemID,
				OnHand: it.Available, Quantity: it.Requested})
		case short == nil:
			short = &shipping.OnHandShortageError{Kind: shipping.ItemKind(kind)}
			fallthrough
		default:
			short.Items = append(short.Items, it)
		}
		return nil
	}, c.OrganizationID, c.WarehouseID, string(c.Reason), c.ReceiptID, c.ShipmentID, c.OccurredAt,
		postgres.Array(kinds), postgres.Array(items), postgres.Array(qty), c.ConsumesReserved)
	if err := stockCheckErr(err); err != nil {
		return err
	}
	if short != nil {
		return short
	}
	if over != nil {
		return over
	}
	return nil
}

// stockCheckErr maps a violation of a stock table's CHECKs: on hand past
// its bound (a balance made by a concurrent statement that moveStockSQL's
// check could not see) is a *warehouse.OnHandBoundError naming no item;
// reserved above on hand (cartons) is shipping.ErrNegativeStock.
func stockCheckErr(err error) error {
	var pgErr pgdriver.Error
	if !errors.As(err, &pgErr) || pgErr.Field('C') != "23514" || (pgErr.Field('t') != "product_stock" && pgErr.Field('t') != "carton_stock") {
		return postgres.DBErr(err)
	}
	if strings.HasSuffix(pgErr.Field('n'), "_on_hand_bound") {
		return &warehouse.OnHandBoundError{}
	}
	return fmt.Errorf("%w: %s", shipping.ErrNegativeStock, pgErr.Field('M'))
}

// onHandAtSQL sums the organization's ($1) movements strictly before $2 per
// warehouse and item (stock_movements_organization_time_idx), leaving out
// the items that held none.
const onHandAtSQL postgres.SQLSelect = `SELECT warehouse_id, CASE WHEN product_id IS NULL THEN 'carton' ELSE 'product' END AS kind,
	coalesce(product_id, carton_id) AS item, sum(quantity)::bigint
FROM stock_movements
WHERE organization_id = $1 AND occurred_at < $2
GROUP BY warehouse_id, product_id, carton_id
HAVING sum(quantity) <> 0
ORDER BY warehouse_id, kind, item`

// OnHandAt implements shippingports.StockLedger.
func (l *StockLedger) OnHandAt(ctx context.Context, organizationID string, at time.Time) ([]shipping.OnHand, error) {
	out := []shipping.OnHand{}
	err := l.run.Query(ctx, onHandAtSQL, func(rows *sql.Rows) error {
		var o shipping.OnHand
		var kind string
		if err := rows.Scan(&o.WarehouseID, &kind, &o.ItemID, &o.Quantity); err != nil {
			return err
		}
		o.Kind = shipping.ItemKind(kind)
		out = append(out, o)
		return nil
	}, organizationID, at)
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	return out, nil
}

// The console's reads of the ledger, newest first: an item's movements on
// stock_movements_item_idx, a shipment's on stock_movements_shipment_idx
// (migration 0022).
const (
	itemMovementsSQL postgres.SQLSelect = `SELECT warehouse_id, coalesce(product_id, carton_id), quantity, reason, coalesce(receipt_id, ''),
	coalesce(shipment_id, ''), occurred_at
FROM stock_movements WHERE organization_id = $1 AND coalesce(product_id, carton_id) = $2
ORDER BY occurred_at DESC, id DESC LIMIT $3 OFFSET $4`
	shipmentMovementsSQL postgres.SQLSelect = `SELECT warehouse_id, coalesce(product_id, carton_id), quantity, reason, coalesce(receipt_id, ''),
	coalesce(shipment_id, ''), occurred_at
FROM stock_movements WHERE shipment_id = $2 AND organization_id = $1
ORDER BY occurred_at DESC, id DESC LIMIT $3 OFFSET $4`
)

// Movements implements shippingports.StockLedger.
func (l *StockLedger) Movements(ctx context.Context, q shippingports.StockMovementQuery, page ports.Page) ([]shippingports.StockMovement, bool, error) {
	stmt, key := itemMovementsSQL, q.ItemID
	if q.ShipmentID != "" {
		stmt, key = shipmentMovementsSQL, q.ShipmentID
	}
	var out []shippingports.StockMovement
	err := l.run.Query(ctx, stmt, func(rows *sql.Rows) error {
		var m shippingports.StockMovement
		if err := rows.Scan(&m.WarehouseID, &m.ItemID, &m.Quantity, &m.Reason, &m.ReceiptID, &m.ShipmentID, &m.OccurredAt); err != nil {
			return err
		}
		m.OccurredAt = m.OccurredAt.UTC()
		out = append(out, m)
		return nil
	}, q.OrganizationID, key, page.Take+1, page.Skip)
	if err != nil {
		return nil, false, postgres.DBErr(err)
	}
	more := len(out) > page.Take
	if more {
		out = out[:page.Take]
	}
	return out, more, nil
}
