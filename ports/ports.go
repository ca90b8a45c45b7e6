package ports

import (
	"context"
	"time"
)

// UnitOfWork runs fn in one database transaction with repositories bound to
// it: everything fn writes commits together or not at all.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context, r Repositories) error) error
}

// Repositories are the repositories bound to one database handle: the
// transaction of a unit of work (what UnitOfWork.Do hands fn), or the pool.
// In a transaction a use case uses those its job names; outside one, each
// use case is built with only the repositories it reads.
type Repositories struct {
	Organizations  OrganizationRepository
	Warehouses     WarehouseRepository
	Inventory      InventoryRepository
	Invoices       InvoiceRepository
	Shipments      ShipmentRepository
	Receipts       OrderReceiptRepository
	APIKeys        APIKeyRepository
	WebhookSecrets WebhookSecretRepository
	Fixtures       FixtureStore
	// Events records the platform's events of the transaction's changes
	// (EventRecorder); outside a unit of work it refuses to.
	Events EventRecorder

	WarehouseReceipts WarehouseReceiptRepository
	WarehouseServices WarehouseServiceRepository
	Stock             StockLedger

	RateCards      RateCardRepository
	Charges        ChargeRepository
	BillingPeriods BillingPeriodRepository

	// RateLimits are the organizations' own rate limits of the API.
	RateLimits OrganizationRateLimits

	// Audit is the audit log of the operators' actions
	// (application.Audited writes to it).
	Audit AuditLog

	// OperatorSessions are the console's sessions and sign-in links.
	OperatorSessions OperatorSessions

	// Overview counts across organizations for the console's first page.
	Overview Overview
}

// Clock tells the time; tests pin it.
type Clock interface {
	Now() time.Time
}

// IDGenerator makes new, unique, opaque IDs such as "shp_0193…".
type IDGenerator interface {
	NewID(prefix string) string
}

// Page is a window of a list: Skip records skipped, at most Take returned.
type Page struct {
	Skip int
	Take int
}
