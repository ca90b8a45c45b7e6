package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// InventoryRepository reads products, cartons and their stock.
type InventoryRepository interface {
	// FindBySKUs returns the organization's items of kind whose SKU is in
	// skus, keyed by SKU.
	FindBySKUs(ctx context.Context, organizationID string, kind domain.ItemKind, skus []string) (map[string]domain.InventoryItem, error)
}
