package shipping

import (
	"github.com/acme3pl/fulfillment/ports"
	"github.com/acme3pl/fulfillment/ports/audit"
)

// Repositories are the shipping context's repositories, bound to one
// database handle: a unit of work's transaction
// (ports.UnitOfWork[Repositories]), or the pool for the reads.
type Repositories struct {
	Shipments  ShipmentRepository
	Inventory  InventoryRepository
	Warehouses ports.WarehouseRepository
	Stock      StockLedger
	// Trail is the audit log and the events (r.Audit, r.Events): an
	// operator's cancel is audited; every change records its event.
	audit.Trail
}
