package postgres

import (
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// The binds: each builds one context's Repositories (ports/<context>) on
// a handle, for its unit of work (UnitOfWorkOf) and its reads on the pool
// (NewRepositories).

// Trail is the audit log and the events' recorder on h: every context's
// unit of work writes the audit trail.
func Trail(h Handle) auditports.Trail {
	return auditports.Trail{Audit: &AuditLog{run: h.run}, Events: h.events}
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
		Trail:          Trail(h),
	}
}

// InvoicingRepositories binds the invoicing context's repositories.
func InvoicingRepositories(h Handle) invoicingports.Repositories {
	return invoicingports.Repositories{
		Invoices: &InvoiceRepository{run: h.run},
		Charges:  &ChargeRepository{run: h.run, settings: h.billing},
	}
}

// Overview is the console's overview on h (ports.Overview).
func Overview(h Handle) ports.Overview { return &OverviewReader{run: h.run} }

// The repositories of the kit that the context packages' binds
// (adapters/postgres/<context>) build their Repositories with, on h.

// Organizations are the organizations.
func Organizations(h Handle) ports.OrganizationRepository { return &OrganizationRepository{run: h.run} }

// Warehouses are the warehouses as organizations see them.
func Warehouses(h Handle) ports.WarehouseRepository { return &WarehouseRepository{run: h.run} }

// RateCards are the organizations' rate cards.
func RateCards(h Handle) billingports.RateCardRepository { return &RateCardRepository{run: h.run} }

// Charges are billing's charges, at h's billing settings.
func Charges(h Handle) billingports.ChargeRepository {
	return &ChargeRepository{run: h.run, settings: h.billing}
}

// BillingPeriods are the billing periods.
func BillingPeriods(h Handle) billingports.PeriodRepository {
	return &BillingPeriodRepository{run: h.run}
}

// Events records the events of h's unit of work (outside one it refuses to).
func Events(h Handle) eventsports.EventRecorder { return h.events }
