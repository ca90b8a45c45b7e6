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
type InventoryRepository struct{ db bun.IDB }

var _ ports.InventoryRepository = (*InventoryRepository)(nil)

// FindBySKUs returns the organization's items of kind whose SKU is in skus,
// in one query.
func (r *InventoryRepository) FindBySKUs(ctx context.Context, organizationID string, kind domain.ItemKind, skus []string) (map[string]domain.InventoryItem, error) {
	out := make(map[string]domain.InventoryItem, len(skus))
	if len(skus) == 0 {
		return out, nil
	}
	var rows []inventoryRow
	err := r.db.NewSelect().Model(&rows).ModelTableExpr(inventoryTable(kind)).
		Where("organization_id = ?", organizationID).Where("sku IN (?)", bun.In(skus)).Scan(ctx)
	if err != nil {
		return nil, dbErr(err)
	}
	for _, row := range rows {
		out[row.SKU] = domain.InventoryItem{ID: row.ID, OrganizationID: row.OrganizationID, Kind: kind, SKU: row.SKU, Name: row.Name}
	}
	return out, nil
}

type stockLockRow struct {
	ItemID   string `bun:"item_id"`
	OnHand   int64  `bun:"on_hand"`
	Reserved int64  `bun:"reserved"`
}

func stockTable(kind domain.ShipmentKind) (table, column string) {
	if kind == domain.SPD {
		return "carton_stock", "carton_id"
	}
	return "product_stock", "product_id"
}

// sortedLines returns the lines ordered by item ID: every transaction locks
// stock rows in this one order, so two submissions cannot deadlock.
func sortedLines(lines []domain.ShipmentLine) []domain.ShipmentLine {
	out := append([]domain.ShipmentLine(nil), lines...)
	slices.SortFunc(out, func(a, b domain.ShipmentLine) int { return strings.Compare(a.ItemID, b.ItemID) })
	return out
}

// Reserve implements ports.InventoryRepository.
func (r *InventoryRepository) Reserve(ctx context.Context, warehouseID string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error {
	lines = sortedLines(lines)
	table, column := stockTable(kind)
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.ItemID
	}
	if kind == domain.PickPack {
		// Make sure a row exists for every product, then lock them in order.
		if _, err := r.db.NewRaw(
			"INSERT INTO product_stock (product_id, warehouse_id, on_hand) SELECT unnest(?::text[]), ?, 0 ON CONFLICT DO NOTHING",
			pgArray(ids), warehouseID).Exec(ctx); err != nil {
			return dbErr(err)
		}
	}
	var rows []stockLockRow
	err := r.db.NewRaw("SELECT ? AS item_id, on_hand, reserved FROM ? WHERE warehouse_id = ? AND ? IN (?) ORDER BY ? FOR UPDATE",
		bun.Ident(column), bun.Ident(table), warehouseID, bun.Ident(column), bun.In(ids), bun.Ident(column)).Scan(ctx, &rows)
	if err != nil {
		return dbErr(err)
	}
	if kind == domain.SPD {
		have := make(map[string]stockLockRow, len(rows))
		for _, row := range rows {
			have[row.ItemID] = row
		}
		var short []domain.StockShortage
		for _, l := range lines {
			row := have[l.ItemID]
			if avail := row.OnHand - row.Reserved; avail < l.Quantity {
				short = append(short, domain.StockShortage{ItemID: l.ItemID, SKU: l.SKU, Requested: l.Quantity, Available: max(avail, 0)})
			}
		}
		if len(short) > 0 {
			return &domain.InsufficientStockError{Items: short}
		}
	}
	return r.adjust(ctx, table, column, warehouseID, lines, +1)
}

// Release implements ports.InventoryRepository.
func (r *InventoryRepository) Release(ctx context.Context, warehouseID string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error {
	table, column := stockTable(kind)
	return r.adjust(ctx, table, column, warehouseID, sortedLines(lines), -1)
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
