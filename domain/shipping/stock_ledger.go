package shipping

import (
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

// MovementReason tells why on hand changed.
type MovementReason string

// The reasons of a stock movement.
const (
	MovementOpening  MovementReason = "opening"  // a balance loaded by the fixture
	MovementReceipt  MovementReason = "receipt"  // goods received (Receipt)
	MovementShipment MovementReason = "shipment" // goods shipped
)

// StockDelta is one item's change of on hand: positive adds, negative
// takes away.
type StockDelta struct {
	Kind     ItemKind
	ItemID   string
	Quantity int64
}

// StockChange is what one fact does to on hand at one warehouse: a movement
// per delta, all dated OccurredAt. Every change of on hand is one, so that
// on hand at any past instant is the sum of the movements before it.
// ReceiptID is set for a receipt, ShipmentID for a shipment.
// ConsumesReserved says that what the deltas take away was reserved (a
// ship): reserved goes down by as much, never below zero.
type StockChange struct {
	OrganizationID   string
	WarehouseID      string
	Reason           MovementReason
	ReceiptID        string
	ShipmentID       string
	OccurredAt       time.Time
	ConsumesReserved bool
	Deltas           []StockDelta
}

// OnHand is what a warehouse held of one item of an organization at some
// instant.
type OnHand struct {
	WarehouseID string
	Kind        ItemKind
	ItemID      string
	Quantity    int64
}

// ErrNegativeStock: a change would take on hand of an item below zero at
// its warehouse; nothing was changed. The stock ledger reports it item by
// item as an *OnHandShortageError, which is this error.
var ErrNegativeStock = domain.NewError(domain.KindOnHandShort, "on hand would go below zero")
