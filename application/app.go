package application

import (
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// Deps are what a context's use cases are built with, R being the
// context's Repositories (ports/<context>): each context's New takes them,
// and what else it needs, as its own parameters.
type Deps[R any] struct {
	UnitOfWork ports.UnitOfWork[R]
	Repos      R // bound to the pool, for reads outside a transaction
	Clock      ports.Clock
	IDs        ports.IDGenerator
	Tracer     trace.Tracer
	Log        *slog.Logger
	// Environment decides whether new shipments are test shipments
	// (sandbox) or real ones (production), and which keys are made.
	Environment domain.Environment
}

// UseCases are the shared kernel's use cases: the operator's fixtures
// (`fulfillment seed`), the organizations, the check of a principal, the
// audit log. Each context's own are in its package (access, shipping,
// intake, warehouse, invoicing, billing, operator), built the same way.
type UseCases struct {
	Seed Handler[Seed, fixtureports.Counts]
	// CheckPrincipal: an organization exists, a warehouse is active.
	CheckPrincipal Handler[CheckPrincipal, struct{}]

	// ListOrganizations: the organizations and their own rate limits.
	ListOrganizations Handler[ListOrganizations, OrganizationPage]
	GetOrganization   Handler[GetOrganization, domain.Organization]
	// GetOverview: the pending shipments per warehouse, the outbox's
	// backlog (the console's first page).
	GetOverview Handler[GetOverview, Overview]

	// ListAuditRecords reads the audit log of the operators' actions.
	ListAuditRecords Handler[ListAuditRecords, struct{}]
	// ListAuditPage reads a page of it, newest first (the console).
	ListAuditPage Handler[ListAuditPage, AuditPage]
	// SetOrganizationLimit: an organization's own rate limit, or the default.
	SetOrganizationLimit Handler[SetOrganizationLimit, struct{}]
	// RecordOperatorAction: the record of an action of several
	// transactions (`orders replay`), once it ended.
	RecordOperatorAction Handler[RecordOperatorAction, struct{}]
}

// New builds the shared kernel's use cases on the access context's
// repositories (organizations, warehouses, limits, the audit log), seed's
// unit of work and the console's overview. seedBilling sets a fixture's
// rate cards (billing's part of the seed); nil refuses fixtures that hold
// any.
func New(d Deps[accessports.Repositories], seed ports.UnitOfWork[fixtureports.Repositories], overview ports.Overview,
	seedBilling fixtureports.SeedBilling,
) *UseCases {
	return &UseCases{
		Seed: Decorate("Seed", NewSeedHandler(seed, d.Clock, seedBilling), d.Tracer, d.Log),
		CheckPrincipal: Decorate("CheckPrincipal", NewCheckPrincipalHandler(d.Repos.Organizations, d.Repos.Warehouses),
			d.Tracer, d.Log),

		ListOrganizations: Decorate("ListOrganizations", NewListOrganizationsHandler(d.Repos.Organizations), d.Tracer, d.Log),
		GetOrganization:   Decorate("GetOrganization", NewGetOrganizationHandler(d.Repos.Organizations), d.Tracer, d.Log),
		GetOverview:       Decorate("GetOverview", NewGetOverviewHandler(overview), d.Tracer, d.Log),

		ListAuditRecords: Decorate("ListAuditRecords", NewListAuditRecordsHandler(d.Repos.Audit), d.Tracer, d.Log),
		ListAuditPage:    Decorate("ListAuditPage", NewListAuditPageHandler(d.Repos.Audit), d.Tracer, d.Log),
		SetOrganizationLimit: Decorate("SetOrganizationLimit", NewSetOrganizationLimitHandler(d.UnitOfWork, d.Clock, d.IDs),
			d.Tracer, d.Log),
		RecordOperatorAction: Decorate("RecordOperatorAction", NewRecordOperatorActionHandler(d.UnitOfWork, d.Clock, d.IDs),
			d.Tracer, d.Log),
	}
}
