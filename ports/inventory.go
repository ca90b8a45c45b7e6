package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// InventoryRepository reads products and cartons and keeps their stock.
type InventoryRepository interface {
	// FindBySKUs returns the organization's items of kind whose SKU is in
	// skus, keyed by SKU.
	FindBySKUs(ctx context.Context, organizationID string, kind domain.ItemKind, skus []string) (map[string]domain.InventoryItem, error)
	// Reserve holds a pending shipment's lines at its warehouse, locking the
	// stock rows in a fixed order for the rest of the transaction. SPD
	// cartons are checked: when any is short nothing is reserved and the
	// error is a *domain.InsufficientStockError listing every short carton.
	// Pick & Pack products are reserved without a check (SPEC.md checks
	// stock only for SPD); their available count may go below zero, which
	// shows a backorder.
	Reserve(ctx context.Context, warehouseID string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error
	// Release gives back what Reserve held for these lines.
	Release(ctx context.Context, warehouseID string, kind domain.ShipmentKind, lines []domain.ShipmentLine) error
}
