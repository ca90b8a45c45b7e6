package access

import (
	"github.com/acme3pl/fulfillment/ports"
	"github.com/acme3pl/fulfillment/ports/audit"
)

// Repositories are the access context's repositories — who may call, with
// which keys and secrets, how often — bound to one database handle: a
// unit of work's transaction (ports.UnitOfWork[Repositories]), or the pool
// for the reads and the verifiers.
type Repositories struct {
	Organizations  ports.OrganizationRepository
	Warehouses     ports.WarehouseRepository
	APIKeys        APIKeyRepository
	WebhookSecrets WebhookSecretRepository
	// RateLimits are the organizations' own rate limits of the API.
	RateLimits OrganizationRateLimits
	// Trail is the audit log and the events (r.Audit, r.Events): the
	// operators' key and limit actions are audited.
	audit.Trail
}
