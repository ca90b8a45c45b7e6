package shipping

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// StockLedger keeps on hand as a ledger: the current balances (what reads
// and reservations use) and every movement that made them, so that a
// balance is always the sum of its item's movements at its warehouse.
type StockLedger interface {
	// Move applies a change, the one way on hand changes (receipts and
	// ships): for each delta, one movement and the balance of the item at
	// the warehouse raised or lowered by it (made at zero when the
	// warehouse held none; for c.ConsumesReserved, reserved lowered as
	// much, never below zero), locking the balances in item order. When
	// any item would go below zero on hand, nothing changes and the error
	// is a *shipping.OnHandShortageError listing every short item (it is
	// shipping.ErrNegativeStock).
	Move(ctx context.Context, c shipping.StockChange) error
	// OnHandAt is the organization's on hand at instant at, per warehouse
	// and item: the sum of the movements strictly before at (on hand at
	// the end of a day is OnHandAt the next day's start), items that held
	// none left out, ordered by warehouse, kind and item.
	OnHandAt(ctx context.Context, organizationID string, at time.Time) ([]shipping.OnHand, error)
	// Movements returns a page of the organization's movements that q
	// selects, newest first, and whether more follow (the console).
	Movements(ctx context.Context, q StockMovementQuery, page ports.Page) ([]StockMovement, bool, error)
}

// StockMovementQuery selects the movements of one item (a product or a
// carton) or of one shipment: exactly one of ItemID and ShipmentID is set.
type StockMovementQuery struct {
	OrganizationID string
	ItemID         string
	ShipmentID     string
}

// StockMovement is one change of on hand in the stock ledger.
type StockMovement struct {
	WarehouseID string
	ItemID      string
	Quantity    int64  // added (receipts, openings) or taken (ships, negative)
	Reason      string // opening, receipt or shipment
	ReceiptID   string // "" unless a receipt
	ShipmentID  string // "" unless a ship
	OccurredAt  time.Time
}
