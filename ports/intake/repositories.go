package intake

import (
	"github.com/acme3pl/fulfillment/ports"
	"github.com/acme3pl/fulfillment/ports/audit"
)

// Repositories are the intake's repositories, bound to one database
// handle: a unit of work's transaction (ports.UnitOfWork[Repositories]),
// or the pool for the reads.
type Repositories struct {
	Receipts OrderReceiptRepository
	// Organizations and Warehouses check a replay's principal.
	Organizations ports.OrganizationRepository
	Warehouses    ports.WarehouseRepository
	// Trail is the audit log and the events (r.Audit, r.Events): a failed
	// order records its event; an operator's replay is audited.
	audit.Trail
}
