package shipping

import (
	"context"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// ShipmentRepository reads and writes shipment aggregates with their lines.
// Every read is scoped to one organization: another organization's shipment
// is domain.ErrNotFound.
type ShipmentRepository interface {
	// Create stores a new shipment with its lines.
	Create(ctx context.Context, s *shipping.Shipment) error
	// Update changes one shipment: it loads the organization's shipment
	// locked until the unit of work ends, so that changes of one shipment
	// (submit, cancel) are serialised, runs change on it, and stores its new
	// state (status and times) unless change fails, whose error it returns
	// as it is. It returns the shipment as changed, or domain.ErrNotFound.
	// Only meaningful inside UnitOfWork.Do.
	Update(ctx context.Context, organizationID, id string, change func(*shipping.Shipment) error) (*shipping.Shipment, error)
	// UpdateAtWarehouse is Update on the warehouse's side: the shipment is
	// found by the warehouse it is at, whatever its organization (another
	// warehouse's shipment is domain.ErrNotFound). Both store nothing when
	// change leaves the shipment as it was (a replayed ship).
	UpdateAtWarehouse(ctx context.Context, warehouseID, id string, change func(*shipping.Shipment) error) (*shipping.Shipment, error)
	// ListAtWarehouse returns one page of the submitted shipments at the
	// warehouse, of every organization it serves, in status, oldest
	// submission first (then ID), each with its organization's name, and
	// whether more follow. A draft never reached the warehouse: a draft
	// cancelled before submission is not listed.
	ListAtWarehouse(ctx context.Context, warehouseID string, status shipping.ShipmentStatus, page ports.Page) (ss []WarehouseShipment, more bool, err error)
	// Get returns the organization's shipment, or domain.ErrNotFound.
	Get(ctx context.Context, organizationID, id string) (*shipping.Shipment, error)
	// List returns one page of the organization's shipments matching
	// filter, newest first (created at, then ID, both descending), and
	// whether more follow.
	List(ctx context.Context, organizationID string, filter ShipmentFilter, page ports.Page) (ss []*shipping.Shipment, more bool, err error)
}

// ShipmentFilter narrows a shipment list; zero fields do not filter.
type ShipmentFilter struct {
	Status shipping.ShipmentStatus
}

// WarehouseShipment is a shipment as its warehouse lists it: with the name
// of the organization it is for.
type WarehouseShipment struct {
	Shipment         *shipping.Shipment
	OrganizationName string
}

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
	ListStock(ctx context.Context, organizationID string, kind shipping.ItemKind, filter StockFilter, page ports.Page) (items []ItemStock, more bool, err error)
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
