package access

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// CreateAPIKey asks for a new API key of an organization, for the
// deployment's environment (`fulfillment apikey create`).
type CreateAPIKey struct {
	OrganizationID string         `json:"organizationId"`
	Name           string         `json:"name"`   // for people to recognise the key
	Scopes         []domain.Scope `json:"scopes"` // parsed with domain.ParseScope
	Actor          audit.Actor    `json:"-"`      // who creates it (docs/audit.md)
}

// SpanAttributes implements application.Attributer.
func (c CreateAPIKey) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID)
}

// CreateAPIKeyHandler makes API keys. Only the key's hash is stored; the key
// itself is returned once.
type CreateAPIKeyHandler struct {
	uow   ports.UnitOfWork[accessports.Repositories]
	keys  accessports.APIKeyGenerator
	clock ports.Clock
	ids   ports.IDGenerator
	env   domain.Environment
	audit *application.Auditor[accessports.Repositories]
}

// NewCreateAPIKeyHandler builds the handler for the deployment's
// environment.
func NewCreateAPIKeyHandler(uow ports.UnitOfWork[accessports.Repositories], keys accessports.APIKeyGenerator, clock ports.Clock, ids ports.IDGenerator,
	env domain.Environment,
) *CreateAPIKeyHandler {
	return &CreateAPIKeyHandler{uow: uow, keys: keys, clock: clock, ids: ids, env: env, audit: application.NewAuditor(uow, clock, ids)}
}

// Handle stores a new key of the organization, which must exist
// (domain.ErrNotFound otherwise), and returns the key. A key holds at least
// one scope, each one an API key may hold (a *domain.ValidationError
// otherwise): a key without any would be refused on every route.
func (h *CreateAPIKeyHandler) Handle(ctx context.Context, c CreateAPIKey) (string, error) {
	var plain string
	op := application.Operation{Actor: c.Actor, Action: audit.APIKeysCreate, OrganizationID: c.OrganizationID, Input: c}
	err := h.audit.Do(ctx, op, func(ctx context.Context, r accessports.Repositories, _ *audit.Record) error {
		var err error
		plain, err = h.create(ctx, r, c)
		return err
	})
	if err != nil {
		return "", err
	}
	return plain, nil
}

// create validates c and stores the new key in r's transaction; it
// returns the key's secret, which the audit record never holds.
func (h *CreateAPIKeyHandler) create(ctx context.Context, r accessports.Repositories, c CreateAPIKey) (string, error) {
	if len(c.Scopes) == 0 {
		return "", domain.Invalid("scopes", "a key needs at least one scope (locations, invoices, shipments, inventory)")
	}
	for _, s := range c.Scopes {
		if _, err := domain.ParseScope(string(s)); err != nil {
			return "", err
		}
	}
	if _, err := r.Organizations.Get(ctx, c.OrganizationID); err != nil {
		return "", fmt.Errorf("organization %q: %w", c.OrganizationID, err)
	}
	plain, hash, prefix, err := h.keys.GenerateAPIKey(h.env)
	if err != nil {
		return "", err
	}
	key := domain.APIKey{
		ID: h.ids.NewID("key"), OrganizationID: c.OrganizationID, Name: c.Name, Environment: h.env,
		Prefix: prefix, Hash: hash, Scopes: c.Scopes, CreatedAt: h.clock.Now(),
	}
	if err := r.APIKeys.Create(ctx, key); err != nil {
		return "", err
	}
	return plain, nil
}
