package shipping

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// inventoryRow is a product or a carton: the two tables share a shape.
type inventoryRow struct {
	ID             string
	OrganizationID string
	SKU            string
	Name           string
}

func inventoryTable(kind shipping.ItemKind) string {
	if kind == shipping.KindCarton {
		return "cartons"
	}
	return "products"
}

// stockTable names the stock table of a kind of item and its item column.
func stockTable(kind shipping.ItemKind) (table, column string) {
	if kind == shipping.KindCarton {
		return "carton_stock", "carton_id"
	}
	return "product_stock", "product_id"
}

// InventoryRepository implements shippingports.InventoryRepository.
type InventoryRepository struct {
	run postgres.Runner
}

var _ shippingports.InventoryRepository = (*InventoryRepository)(nil)

// inventorySQL are the statements of one kind of item, which differ only
// in their tables (inventoryTable, stockTable).
type inventorySQL struct {
	// Held as statements, so that running one converts nothing.
	findByIDs, page, pageBySKU, levels, lock, adjust postgres.Statement
}

func newInventorySQL(kind shipping.ItemKind) inventorySQL {
	items := inventoryTable(kind)
	stock, column := stockTable(kind)
	return inventorySQL{
		// $1 the organization, $2 the items' IDs.
		findByIDs: postgres.SQLSelect(`SELECT id, organization_id, sku, name FROM ` + items + ` WHERE organization_id = $1 AND id = ANY($2::text[])`),
		// A page of items by SKU, one row more than the page ($3) to tell
		// whether more follow; all of them, or the one with SKU $4.
		page:      postgres.SQLSelect(`SELECT id, organization_id, sku, name FROM ` + items + ` WHERE organization_id = $1 ORDER BY sku, id OFFSET $2 LIMIT $3`),
		pageBySKU: postgres.SQLSelect(`SELECT id, organization_id, sku, name FROM ` + items + ` WHERE organization_id = $1 AND sku = $4 ORDER BY sku, id OFFSET $2 LIMIT $3`),
		// The stock of items $1 at every active warehouse available to the
		// organization $2, zeros where the warehouse holds no row for one.
		levels: postgres.SQLSelect(`SELECT x.item_id, w.id, w.name, coalesce(st.on_hand, 0), coalesce(st.reserved, 0)
FROM unnest($1::text[]) AS x (item_id)
CROSS JOIN warehouses AS w
JOIN warehouse_organizations AS wo ON wo.warehouse_id = w.id AND wo.organization_id = $2
LEFT JOIN ` + stock + ` AS st ON st.` + column + ` = x.item_id AND st.warehouse_id = w.id
WHERE w.active
ORDER BY x.item_id, w.name, w.id`),
		// Locks the stock rows of items $2 at warehouse $1 until the
		// transaction ends, in item ID order.
		lock: postgres.SQLSelect(`SELECT ` + column + `, on_hand, reserved FROM ` + stock + ` WHERE warehouse_id = $1 AND ` + column + ` = ANY($2::text[])
ORDER BY ` + column + ` FOR UPDATE`),
		// Adds quantities $3 to the reservations of items $2 at warehouse $1.
		adjust: postgres.SQLUpdate(`UPDATE ` + stock + ` AS s SET reserved = s.reserved + v.q
FROM (SELECT unnest($2::text[]) AS id, unnest($3::bigint[]) AS q) AS v
WHERE s.warehouse_id = $1 AND s.` + column + ` = v.id`),
	}
}

var (
	productSQL = newInventorySQL(shipping.KindProduct)
	cartonSQL  = newInventorySQL(shipping.KindCarton)
)

func inventorySQLOf(kind shipping.ItemKind) inventorySQL {
	if kind == shipping.KindCarton {
		return cartonSQL
	}
	return productSQL
}

// items runs q, a statement of inventoryRow's columns.
func (r *InventoryRepository) items(ctx context.Context, q postgres.Statement, args ...any) ([]inventoryRow, error) {
	var rows []inventoryRow
	err := r.run.Query(ctx, q, func(sr *sql.Rows) error {
		var row inventoryRow
		err := sr.Scan(&row.ID, &row.OrganizationID, &row.SKU, &row.Name)
		rows = append(rows, row)
		return err
	}, args...)
	return rows, postgres.DBErr(err)
}

// FindByIDs returns the organization's items of kind whose ID is in ids, in
// one query. IDs that cannot be IDs are not sent to the database.
func (r *InventoryRepository) FindByIDs(ctx context.Context, organizationID string, kind shipping.ItemKind, ids []string) (map[string]shipping.InventoryItem, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if domain.ValidID(id) {
			valid = append(valid, id)
		}
	}
	out := make(map[string]shipping.InventoryItem, len(valid))
	if len(valid) == 0 {
		return out, nil
	}
	rows, err := r.items(ctx, inventorySQLOf(kind).findByIDs, organizationID, postgres.Array(valid))
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		out[row.ID] = shipping.InventoryItem{ID: row.ID, OrganizationID: row.OrganizationID, Kind: kind, SKU: row.SKU, Name: row.Name}
	}
	return out, nil
}

// ListStock returns a page of items with their stock levels in two queries:
// the page of items, then the levels of all of them at every active
// warehouse available to the organization.
func (r *InventoryRepository) ListStock(ctx context.Context, organizationID string, kind shipping.ItemKind, filter shippingports.StockFilter, page ports.Page) ([]shippingports.ItemStock, bool, error) {
	stmts := inventorySQLOf(kind)
	q, args := stmts.page, []any{organizationID, page.Skip, page.Take + 1}
	if filter.SKU != "" {
		q, args = stmts.pageBySKU, append(args, filter.SKU)
	}
	rows, err := r.items(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	rows, more := postgres.TrimPage(rows, page)
	out := make([]shippingports.ItemStock, len(rows))
	if len(rows) == 0 {
		return out, false, nil
	}
	ids := make([]string, len(rows))
	index := make(map[string]int, len(rows))
	for i, row := range rows {
		ids[i], index[row.ID] = row.ID, i
		out[i] = shippingports.ItemStock{
			Item:   shipping.InventoryItem{ID: row.ID, OrganizationID: row.OrganizationID, Kind: kind, SKU: row.SKU, Name: row.Name},
			Levels: []shipping.StockLevel{},
		}
	}
	err = r.run.Query(ctx, stmts.levels, func(sr *sql.Rows) error {
		var itemID string
		var l shipping.StockLevel
		if err := sr.Scan(&itemID, &l.Warehouse.ID, &l.Warehouse.Name, &l.OnHand, &l.Reserved); err != nil {
			return err
		}
		out[index[itemID]].Levels = append(out[index[itemID]].Levels, l)
		return nil
	}, postgres.Array(ids), organizationID)
	if err != nil {
		return nil, false, postgres.DBErr(err)
	}
	return out, more, nil
}

type stockLockRow struct {
	ItemID   string
	OnHand   int64
	Reserved int64
}

// sortedLines returns the lines ordered by item ID: every transaction locks
// stock rows in this one order, so two submissions cannot deadlock.
func sortedLines(lines []shipping.ShipmentLine) []shipping.ShipmentLine {
	out := append([]shipping.ShipmentLine(nil), lines...)
	slices.SortFunc(out, func(a, b shipping.ShipmentLine) int { return strings.Compare(a.ItemID, b.ItemID) })
	return out
}

// reserveProductsSQL makes the missing stock rows of products $2 of
// organization $4 at warehouse $1 and adds quantities $3 to their
// reservations, row by row in product order (the lock order of every
// reservation). It is the one reservation of Pick & Pack lines: Reserve runs
// it alone (a draft submitted), the order intake as a CTE of acceptOrderSQL
// (order_receipts.go), whose first four parameters are the same. A part of other
// statements, it is text, declared an INSERT where it runs alone.
const reserveProductsSQL = `INSERT INTO product_stock AS s (organization_id, product_id, warehouse_id, on_hand, reserved)
	SELECT $4, v.id, $1, 0, sum(v.q) FROM unnest($2::text[], $3::bigint[]) AS v(id, q) GROUP BY v.id ORDER BY v.id
	ON CONFLICT (product_id, warehouse_id) DO UPDATE SET reserved = s.reserved + excluded.reserved`

// Reserve implements shippingports.InventoryRepository.
func (r *InventoryRepository) Reserve(ctx context.Context, organizationID, warehouseID string, kind shipping.ShipmentKind, lines []shipping.ShipmentLine) error {
	lines = sortedLines(lines)
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.ItemID
	}
	if kind == shipping.PickPack {
		// Nothing to check: one statement, on the hot path of the order
		// intake.
		qty := make([]int64, len(lines))
		for i, l := range lines {
			qty[i] = l.Quantity
		}
		_, err := r.run.Exec(ctx, postgres.SQLInsert(reserveProductsSQL), warehouseID, postgres.Array(ids), postgres.Array(qty), organizationID)
		return postgres.DBErr(err)
	}
	stmts := inventorySQLOf(kind.Items())
	rows, err := r.lockStock(ctx, stmts, warehouseID, ids)
	if err != nil {
		return err
	}
	if kind == shipping.SPD {
		levels := make(map[string]shipping.StockLevel, len(rows))
		for _, row := range rows {
			levels[row.ItemID] = shipping.StockLevel{OnHand: row.OnHand, Reserved: row.Reserved}
		}
		if err := shipping.CheckAvailable(lines, levels); err != nil {
			return err
		}
	}
	return r.adjust(ctx, stmts, warehouseID, lines, +1)
}

// Release implements shippingports.InventoryRepository. It locks the stock rows in
// item ID order first, as Reserve does: an UPDATE … FROM alone locks rows in
// whatever order its plan visits them, and a release racing a reservation
// of the same cartons could deadlock.
func (r *InventoryRepository) Release(ctx context.Context, warehouseID string, kind shipping.ShipmentKind, lines []shipping.ShipmentLine) error {
	lines = sortedLines(lines)
	stmts := inventorySQLOf(kind.Items())
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.ItemID
	}
	if _, err := r.lockStock(ctx, stmts, warehouseID, ids); err != nil {
		return err
	}
	return r.adjust(ctx, stmts, warehouseID, lines, -1)
}

// lockStock reads and locks the stock rows of ids at the warehouse, in item
// ID order, until the transaction ends.
func (r *InventoryRepository) lockStock(ctx context.Context, stmts inventorySQL, warehouseID string, ids []string) ([]stockLockRow, error) {
	var rows []stockLockRow
	err := r.run.Query(ctx, stmts.lock, func(sr *sql.Rows) error {
		var row stockLockRow
		err := sr.Scan(&row.ItemID, &row.OnHand, &row.Reserved)
		rows = append(rows, row)
		return err
	}, warehouseID, postgres.Array(ids))
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	return rows, nil
}

// adjust adds sign × quantity to reserved for every line, in one statement.
func (r *InventoryRepository) adjust(ctx context.Context, stmts inventorySQL, warehouseID string, lines []shipping.ShipmentLine, sign int64) error {
	ids := make([]string, len(lines))
	qty := make([]int64, len(lines))
	for i, l := range lines {
		ids[i], qty[i] = l.ItemID, sign*l.Quantity
	}
	_, err := r.run.Exec(ctx, stmts.adjust, warehouseID, postgres.Array(ids), postgres.Array(qty))
	return postgres.DBErr(err)
}
