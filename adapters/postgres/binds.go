package postgres

import (
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// The binds: each builds one context's Repositories (ports/<context>) on
// a handle, for its unit of work (UnitOfWorkOf) and its reads on the pool
// (NewRepositories).

// trail is the audit log and the events' recorder on h.
func trail(h Handle) auditports.Trail {
	return auditports.Trail{Audit: &AuditLog{run: h.run}, Events: h.events}
}

// ShippingRepositories binds the shipping context's repositories.
func ShippingRepositories(h Handle) shippingports.Repositories {
	return shippingports.Repositories{
		Shipments:  &ShipmentRepository{run: h.run},
		Inventory:  &InventoryRepository{run: h.run},
		Warehouses: &WarehouseRepository{run: h.run},
		Stock:      &StockLedger{run: h.run},
		Trail:      trail(h),
	}
}

// IntakeRepositories binds the intake's repositories.
func IntakeRepositories(h Handle) intakeports.Repositories {
	return intakeports.Repositories{
		Receipts:      &OrderReceiptRepository{run: h.run, events: h.events},
		Organizations: &OrganizationRepository{run: h.run},
		Warehouses:    &WarehouseRepository{run: h.run},
		Trail:         trail(h),
	}
}

// WarehouseRepositories binds the warehouse context's repositories.
func WarehouseRepositories(h Handle) warehouseports.Repositories {
	return warehouseports.Repositories{
		Warehouses:        &WarehouseRepository{run: h.run},
		Inventory:         &InventoryRepository{run: h.run},
		Shipments:         &ShipmentRepository{run: h.run},
		Stock:             &StockLedger{run: h.run},
		WarehouseReceipts: &WarehouseReceiptRepository{run: h.run},
		WarehouseServices: &WarehouseServiceRepository{run: h.run},
		RateCards:         &RateCardRepository{run: h.run},
		Charges:           &ChargeRepository{run: h.run, settings: h.billing},
		BillingPeriods:    &BillingPeriodRepository{run: h.run},
		Events:            h.events,
	}
}

// BillingRepositories binds billing's repositories.
func BillingRepositories(h Handle) billingports.Repositories {
	return billingports.Repositories{
		RateCards:      &RateCardRepository{run: h.run},
		Charges:        &ChargeRepository{run: h.run, settings: h.billing},
		BillingPeriods: &BillingPeriodRepository{run: h.run},
		Organizations:  &OrganizationRepository{run: h.run},
		Invoices:       &InvoiceRepository{run: h.run},
		Overview:       &OverviewReader{run: h.run},
		Trail:          trail(h),
	}
}

// InvoicingRepositories binds the invoicing context's repositories.
func InvoicingRepositories(h Handle) invoicingports.Repositories {
	return invoicingports.Repositories{
		Invoices: &InvoiceRepository{run: h.run},
		Charges:  &ChargeRepository{run: h.run, settings: h.billing},
	}
}

// AccessRepositories binds the access context's repositories.
func AccessRepositories(h Handle) accessports.Repositories {
	return accessports.Repositories{
		Organizations:  &OrganizationRepository{run: h.run},
		Warehouses:     &WarehouseRepository{run: h.run},
		APIKeys:        &APIKeyRepository{run: h.run},
		WebhookSecrets: &WebhookSecretRepository{run: h.run},
		RateLimits:     &OrganizationRateLimits{run: h.run},
		Trail:          trail(h),
	}
}

// FixtureRepositories binds the seed's repositories: the fixtures, and
// billing's, which set a fixture's rate cards in the seed's transaction.
func FixtureRepositories(h Handle) fixtureports.Repositories {
	return fixtureports.Repositories{Fixtures: &FixtureStore{run: h.run}, Billing: BillingRepositories(h)}
}

// Overview is the console's overview on h (ports.Overview).
func Overview(h Handle) ports.Overview { return &OverviewReader{run: h.run} }
