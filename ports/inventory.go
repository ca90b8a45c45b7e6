package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain/shipping"
)

// InventoryRepository reads products and cartons and keeps their stock.
type InventoryRepository interface {
	// FindByIDs returns the organization's items of kind whose ID is in ids,
	// keyed by ID. IDs of other organizations and IDs that cannot be IDs are
	// simply absent.
	FindByIDs(ctx context.Context, organizationID string, kind shipping.ItemKind, ids []string) (map[string]shipping.InventoryItem, error)
	// ListStock returns one page of the organization's items of kind
	// matching filter, ordered by SKU then ID, each with its stock level at
	// every active warehouse available to the organization (zero where the
	// warehouse holds none), and whether more items follow.
	ListStock(ctx context.Context, organizationID string, kind shipping.ItemKind, filter StockFilter, page Page) (items []ItemStock, more bool, err error)
	// Reserve holds a pending shipment's lines at its warehouse (the items
	// are the organization's), locking the stock rows in a fixed order for
	// the rest of the transaction. SPD cartons are checked: when any is
	// short nothing is reserved and the error is a
	// *shipping.InsufficientStockError listing every short carton. Pick & Pack
	// products are reserved without a check (stock is checked only for SPD);
	// their available count may go below zero, which shows a backorder.
	Reserve(ctx context.Context, organizationID, warehouseID string, kind shipping.ShipmentKind, lines []shipping.ShipmentLine) error
	// Release gives back what Reserve held for these lines, locking the
	// stock rows in the same fixed order as Reserve.
	Release(ctx context.Context, warehouseID string, kind shipping.ShipmentKind, lines []shipping.ShipmentLine) error
}

// StockFilter narrows a stock list; zero fields do not filter.
type StockFilter struct {
	SKU string // exact, case-sensitive SKU
}

// ItemStock is a product or carton with its stock level per warehouse,
// ordered by warehouse name then ID.
type ItemStock struct {
	Item   shipping.InventoryItem
	Levels []shipping.StockLevel
}
