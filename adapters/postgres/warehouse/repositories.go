package warehouse

import (
	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// Repositories binds the warehouse context's repositories to h: a unit of
// work's transaction (postgres.UnitOfWorkOf) or the pool. Its own are the
// receipts and services a warehouse reports; the rest are the kit's.
func Repositories(h postgres.Handle) warehouseports.Repositories {
	return warehouseports.Repositories{
		Warehouses:        postgres.Warehouses(h),
		Inventory:         pgshipping.Inventory(h),
		Shipments:         pgshipping.Shipments(h),
		Stock:             pgshipping.Stock(h),
		WarehouseReceipts: &ReceiptRepository{run: h.Runner()},
		WarehouseServices: &ServiceRepository{run: h.Runner()},
		RateCards:         pgbilling.RateCards(h),
		Charges:           pgbilling.Charges(h),
		BillingPeriods:    pgbilling.Periods(h),
		Events:            postgres.Events(h),
	}
}

// Statements are the package's statements by name, for the one golden
// file of every statement (adapters/postgres/testdata/statements.golden).
func Statements() map[string]postgres.Statement {
	return map[string]postgres.Statement{
		"createReceiptSQL":      createReceiptSQL,
		"receiptByReferenceSQL": receiptByReferenceSQL,
		"redateReceiptSQL":      redateReceiptSQL,
		"createServiceSQL":      createServiceSQL,
		"serviceByReferenceSQL": serviceByReferenceSQL,
		"redateServiceSQL":      redateServiceSQL,
	}
}
