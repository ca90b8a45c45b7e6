package postgres

import (
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// The binds: each builds one context's Repositories (ports/<context>) on
// a handle, for its unit of work (UnitOfWorkOf) and its reads on the pool
// (NewRepositories).

// Trail is the audit log and the events' recorder on h: every context's
// unit of work writes the audit trail.
func Trail(h Handle) auditports.Trail {
	return auditports.Trail{Audit: &AuditLog{run: h.run}, Events: h.events}
}

// Overview is the console's overview on h (ports.Overview).
func Overview(h Handle) ports.Overview { return &OverviewReader{run: h.run} }

// The repositories of the kit that the context packages' binds
// (adapters/postgres/<context>) build their Repositories with, on h.

// Organizations are the organizations.
func Organizations(h Handle) ports.OrganizationRepository { return &OrganizationRepository{run: h.run} }

// Warehouses are the warehouses as organizations see them.
func Warehouses(h Handle) ports.WarehouseRepository { return &WarehouseRepository{run: h.run} }

// Events records the events of h's unit of work (outside one it refuses to).
func Events(h Handle) eventsports.EventRecorder { return h.events }
