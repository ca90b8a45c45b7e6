package warehouse

import (
	"github.com/acme3pl/fulfillment/ports"
	"github.com/acme3pl/fulfillment/ports/billing"
	"github.com/acme3pl/fulfillment/ports/events"
	"github.com/acme3pl/fulfillment/ports/shipping"
)

// Repositories are the warehouse context's repositories, bound to one
// database handle: a unit of work's transaction
// (ports.UnitOfWork[Repositories]), or the pool for the reads.
type Repositories struct {
	Warehouses        ports.WarehouseRepository
	Inventory         shipping.InventoryRepository
	Shipments         shipping.ShipmentRepository
	Stock             shipping.StockLedger
	WarehouseReceipts ReceiptRepository
	WarehouseServices ServiceRepository

	// RateCards, Charges and BillingPeriods are billing's, which a report
	// bills in its transaction (ReportBilling) and whose closed periods it
	// checks.
	RateCards      billing.RateCardRepository
	Charges        billing.ChargeRepository
	BillingPeriods billing.PeriodRepository

	// Events records the platform's events of the transaction's changes.
	Events events.EventRecorder
}
