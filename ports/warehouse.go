package ports

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
)

// WarehouseReceiptRepository keeps the goods a warehouse received.
type WarehouseReceiptRepository interface {
	// Create stores a new receipt and its lines, unless the warehouse has a
	// receipt under the same reference already: then it writes nothing and
	// returns that one (created false). The unique (warehouse, reference)
	// is the fact: of two creations racing with one reference, the second
	// waits for the first's transaction and finds its receipt.
	Create(ctx context.Context, r *warehouse.Receipt) (stored *warehouse.Receipt, created bool, err error)
	// Redate writes the new time of a receipt created in this transaction
	// (warehouse.Receipt's DateAfter): its receivedAt and createdAt, and
	// the time of its movements, which were dated was.
	Redate(ctx context.Context, r *warehouse.Receipt, was time.Time) error
}

// WarehouseServiceRepository keeps the services a warehouse performed.
type WarehouseServiceRepository interface {
	// Create stores a new service record, unless the warehouse has one under
	// the same reference already: then it writes nothing and returns that
	// one (created false), as WarehouseReceiptRepository.Create does.
	Create(ctx context.Context, s *warehouse.ServiceRecord) (stored *warehouse.ServiceRecord, created bool, err error)
	// Redate writes the new time of a service created in this transaction
	// (warehouse.ServiceRecord's DateAfter): its performedAt and createdAt.
	Redate(ctx context.Context, s *warehouse.ServiceRecord) error
}

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
	Movements(ctx context.Context, q StockMovementQuery, page Page) ([]StockMovement, bool, error)
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

// ReportBilling is billing's part of the warehouse's reports (receipts,
// services, ships), which their use cases call in the report's
// transaction, with its repositories, so that what it writes commits with
// the report or not at all. application/billing implements it.
type ReportBilling interface {
	// CheckServiceOffered refuses a code that is not a service of the
	// organization's rate card in force at at (warehouse.ErrUnknownService).
	CheckServiceOffered(ctx context.Context, r Repositories, organizationID, code string, at time.Time) error
	// CheckPeriodOpen refuses a fact dated inside a closed billing period of
	// the organization (warehouse.ErrPeriodClosed); the open period is then
	// held FOR SHARE until the report commits, so a finalization waits.
	CheckPeriodOpen(ctx context.Context, r Repositories, organizationID string, at time.Time) error
	// ChargeReceipt, ChargeService and ChargeShipment accrue a new report's
	// charges (one statement each); never for a retry or a replayed ship.
	ChargeReceipt(ctx context.Context, r Repositories, receipt *warehouse.Receipt) error
	ChargeService(ctx context.Context, r Repositories, service *warehouse.ServiceRecord) error
	ChargeShipment(ctx context.Context, r Repositories, shipped *shipping.Shipment) error
}
