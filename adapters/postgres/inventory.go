package postgres

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// inventoryRow maps both products and cartons: the two tables share a shape.
type inventoryRow struct {
	ID             string `bun:"id,pk"`
	OrganizationID string `bun:"organization_id"`
	SKU            string `bun:"sku"`
	Name           string `bun:"name"`
}

func inventoryTable(kind domain.ItemKind) string {
	if kind == domain.KindCarton {
		return "cartons"
	}
	return "products"
}

// InventoryRepository implements ports.InventoryRepository.
type InventoryRepository struct {
	db  bun.IDB
	hot runner
}

var _ ports.InventoryRepository = (*InventoryRepository)(nil)

// FindByIDs returns the organization's items of kind whose ID is in ids, in
// one query. IDs that cannot be IDs are not sent to the database.
func (r *InventoryRepository) FindByIDs(ctx context.Context, organizationID string, kind domain.ItemKind, ids []string) (map[string]domain.InventoryItem, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if domain.ValidID(id) {
			valid = append(valid, id)
		}
	}
	out := make(map[string]domain.InventoryItem, len(valid))
	if len(valid) == 0 {
		return out, nil
	}
	var rows []inventoryRow
	err := r.db.NewSelect().Model(&rows).ModelTableExpr("? AS inventory_row", bun.Ident(inventoryTable(kind))).
		Where("organization_id = ?", organizationID).Where("id IN (?)", bun.List(valid)).Scan(ctx)
	if err != nil {
		return nil, dbErr(err)
	}
	for _, row := range rows {
		out[row.ID] = domain.InventoryItem{ID: row.ID, OrganizationID: row.OrganizationID, Kind: kind, SKU: row.SKU, Name: row.Name}
	}
	return out, nil
}

// stockLevelRow is one item's stock at one warehouse (zeros where the
// warehouse holds no row for it).
type stockLevelRow struct {
	ItemID        string `bun:"item_id"`
	WarehouseID   string `bun:"warehouse_id"`
	WarehouseName string `bun:"warehouse_name"`
	OnHand        int64  `bun:"on_hand"`
	Reserved      int64  `bun:"reserved"`
}

// stockTable names the stock table of a kind of item and its item column.
func stockTable(kind domain.ItemKind) (table, column string) {
	if kind == domain.KindCarton {
		return "carton_stock", "carton_id"
	}
	return "product_stock", "product_id"
}

// ListStock returns a page of items with their stock levels in two queries:
// the page of items (one row more, to tell whether more follow), then the
// levels of all of them at every active warehouse available to the
// organization.
func (r *InventoryRepository) ListStock(ctx context.Context, organizationID string, kind domain.ItemKind, filter ports.StockFilter, page ports.Page) ([]ports.ItemStock, bool, error) {
	var rows []inventoryRow
	q := r.db.NewSelect().Model(&rows).ModelTableExpr("? AS inventory_row", bun.Ident(inventoryTable(kind))).
		Where("organization_id = ?", organizationID)
	if filter.SKU != "" {
		q = q.Where("sku = ?", filter.SKU)
	}
	if err := q.OrderExpr("sku ASC, id ASC").Offset(page.Skip).Limit(page.Take + 1).Scan(ctx); err != nil {
		return nil, false, dbErr(err)
	}
	rows, more := trimPage(rows, page)
	out := make([]ports.ItemStock, len(rows))
	if len(rows) == 0 {
		return out, false, nil
	}
	ids := make([]string, len(rows))
	index := make(map[string]int, len(rows))
	for i, row := range rows {
		ids[i], index[row.ID] = row.ID, i
		out[i] = ports.ItemStock{
			Item:   domain.InventoryItem{ID: row.ID, OrganizationID: row.OrganizationID, Kind: kind, SKU: row.SKU, Name: row.Name},
			Levels: []domain.StockLevel{},
		}
	}
	table, column := stockTable(kind)
	var levels []stockLevelRow
	err := r.db.NewRaw(
		"SELECT x.item_id, w.id AS warehouse_id, w.name AS warehouse_name, "+
			"coalesce(st.on_hand, 0) AS on_hand, coalesce(st.reserved, 0) AS reserved "+
			"FROM unnest(?::text[]) AS x (item_id) "+
			"CROSS JOIN warehouses AS w "+
			"JOIN warehouse_organizations AS wo ON wo.warehouse_id = w.id AND wo.organization_id = ? "+
			"LEFT JOIN ? AS st ON st.? = x.item_id AND st.warehouse_id = w.id "+
			"WHERE w.active "+
			"ORDER BY x.item_id, w.name, w.id",
		pgArray(ids), organizationID, bun.Ident(table), bun.Ident(column)).Scan(ctx, &levels)
	if err != nil {
		return nil, false, dbErr(err)
	}
	for _, l := range levels {
		i := index[l.ItemID]
		out[i].Levels = append(out[i].Levels, domain.StockLevel{
			Warehouse: domain.WarehouseRef{ID: l.WarehouseID, Name: l.WarehouseName},
			OnHand:    l.OnHand, Reserved: l.Reserved,
		})
	}
	return out, more, nil
}

type stockLockRow struct {
	ItemID   string `bun:"item_id"`
	OnHand   int64  `bun:"on_hand"`
	Reserved int64  `bun:"reserved"`
}

// sortedLines returns the lines ordered by item ID: every transaction locks
// stock rows in this one order, so two submissions cannot deadlock.
func sortedLines(lines []domain.ShipmentLine) []domain.ShipmentLine {
	out := append([]domain.ShipmentLine(nil), lines...)
	slices.SortFunc(out, func(a, b domain.ShipmentLine) int { return strings.Compare(a.ItemID, b.ItemID) })
	return out
}

var reservePickPackQuery = hotQuery{operation: "INSERT", sql: "INSERT INTO product_stock AS s (product_id, warehouse_id, on_hand, reserved) " +
	"SELECT v.id, $1, 0, sum(v.q) FROM unnest($2::text[], $3::bigint[]) AS v(id, q) GROUP BY v.id ORDER BY v.id " +
	"ON CONFLICT (product_id, warehouse_id) DO UPDATE SET reserved = s.reserved + excluded.reserved"}

// Reserve implements ports.InventoryRepository.
func (r *InventoryRepository) Reserve(ctx context.Context, warehouseID string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error {
	lines = sortedLines(lines)
	table, column := stockTable(kind.Items())
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.ItemID
	}
	if kind == domain.PickPack {
		// Nothing to check: one statement makes the missing stock rows and
		// adds the reservation, row by row in item order (the lock order of
		// every reservation), on the hot path of the order intake.
		qty := make([]int64, len(lines))
		for i, l := range lines {
			qty[i] = l.Quantity
		}
		_, err := r.hot.exec(ctx, &reservePickPackQuery, warehouseID, pgTextArray(ids), pgInt64Array(qty))
		return dbErr(err)
	}
	rows, err := r.lockStock(ctx, table, column, warehouseID, ids)
	if err != nil {
		return err
	}
	if kind == domain.SPD {
		levels := make(map[string]domain.StockLevel, len(rows))
		for _, row := range rows {
			levels[row.ItemID] = domain.StockLevel{OnHand: row.OnHand, Reserved: row.Reserved}
		}
		if err := domain.CheckAvailable(lines, levels); err != nil {
			return err
		}
	}
	return r.adjust(ctx, table, column, warehouseID, lines, +1)
}

// Release implements ports.InventoryRepository. It locks the stock rows in
// item ID order first, as Reserve does: an UPDATE … FROM alone locks rows in
// whatever order its plan visits them, and a release racing a reservation
// of the same cartons could deadlock.
func (r *InventoryRepository) Release(ctx context.Context, warehouseID string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error {
	lines = sortedLines(lines)
	table, column := stockTable(kind.Items())
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.ItemID
	}
	if _, err := r.lockStock(ctx, table, column, warehouseID, ids); err != nil {
		return err
	}
	return r.adjust(ctx, table, column, warehouseID, lines, -1)
}

// lockStock reads and locks the stock rows of ids at the warehouse, in item
// ID order, until the transaction ends.
func (r *InventoryRepository) lockStock(ctx context.Context, table, column, warehouseID string, ids []string) ([]stockLockRow, error) {
	var rows []stockLockRow
	err := r.db.NewRaw("SELECT ? AS item_id, on_hand, reserved FROM ? WHERE warehouse_id = ? AND ? IN (?) ORDER BY ? FOR UPDATE",
		bun.Ident(column), bun.Ident(table), warehouseID, bun.Ident(column), bun.List(ids), bun.Ident(column)).Scan(ctx, &rows)
	if err != nil {
		return nil, dbErr(err)
	}
	return rows, nil
}

// adjust adds sign × quantity to reserved for every line, in one statement.
func (r *InventoryRepository) adjust(ctx context.Context, table, column, warehouseID string, lines []domain.ShipmentLine, sign int64) error {
	ids := make([]string, len(lines))
	qty := make([]int64, len(lines))
	for i, l := range lines {
		ids[i], qty[i] = l.ItemID, sign*l.Quantity
	}
	_, err := r.db.NewRaw(
		"UPDATE ? AS s SET reserved = s.reserved + v.q FROM (SELECT unnest(?::text[]) AS id, unnest(?::bigint[]) AS q) AS v "+
			"WHERE s.warehouse_id = ? AND s.? = v.id",
		bun.Ident(table), pgArray(ids), pgArray(qty), warehouseID, bun.Ident(column)).Exec(ctx)
	return dbErr(err)
}
