package billing

import (
	"github.com/acme3pl/fulfillment/ports"
	"github.com/acme3pl/fulfillment/ports/audit"
	"github.com/acme3pl/fulfillment/ports/invoicing"
)

// Repositories are billing's repositories, bound to one database handle:
// a unit of work's transaction (ports.UnitOfWork[Repositories]), or the
// pool for the reads.
type Repositories struct {
	RateCards      RateCardRepository
	Charges        ChargeRepository
	BillingPeriods PeriodRepository
	Organizations  ports.OrganizationRepository
	Invoices       invoicing.InvoiceRepository
	// Overview lists the periods that end soon (the console).
	Overview ports.Overview
	// Trail is the audit log and the events (r.Audit, r.Events): the
	// operators' billing actions are audited; invoices record their events.
	audit.Trail
}
