package postgres

import (
	"context"

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
