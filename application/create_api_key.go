package application

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// CreateAPIKey asks for a new API key of an organization, for the
// deployment's environment (`fulfillment apikey create`).
type CreateAPIKey struct {
	OrganizationID string
	Name           string         // for people to recognise the key
	Scopes         []domain.Scope // parsed with domain.ParseScope
}

// SpanAttributes implements Attributer.
func (c CreateAPIKey) SpanAttributes() []attribute.KeyValue {
	return OrganizationAttributes(c.OrganizationID)
}

// CreateAPIKeyHandler makes API keys. Only the key's hash is stored; the key
// itself is returned once.
type CreateAPIKeyHandler struct {
	uow   ports.UnitOfWork
	keys  ports.APIKeyGenerator
	clock ports.Clock
	ids   ports.IDGenerator
	env   domain.Environment
}

// NewCreateAPIKeyHandler builds the handler for the deployment's
// environment.
func NewCreateAPIKeyHandler(uow ports.UnitOfWork, keys ports.APIKeyGenerator, clock ports.Clock, ids ports.IDGenerator,
	env domain.Environment,
) *CreateAPIKeyHandler {
	return &CreateAPIKeyHandler{uow: uow, keys: keys, clock: clock, ids: ids, env: env}
}

// Handle stores a new key of the organization, which must exist
// (domain.ErrNotFound otherwise), and returns the key. A key holds at least
// one scope, each one an API key may hold (a *domain.ValidationError
// otherwise): a key without any would be refused on every route.
func (h *CreateAPIKeyHandler) Handle(ctx context.Context, c CreateAPIKey) (string, error) {
	if len(c.Scopes) == 0 {
		return "", domain.Invalid("scopes", "a key needs at least one scope (locations, invoices, shipments, inventory)")
	}
	for _, s := range c.Scopes {
		if _, err := domain.ParseScope(string(s)); err != nil {
			return "", err
		}
	}
	plain, hash, prefix, err := h.keys.GenerateAPIKey(h.env)
	if err != nil {
		return "", err
	}
	key := domain.APIKey{
		ID: h.ids.NewID("key"), OrganizationID: c.OrganizationID, Name: c.Name, Environment: h.env,
		Prefix: prefix, Hash: hash, Scopes: c.Scopes, CreatedAt: h.clock.Now(),
	}
	err = h.uow.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		if _, err := r.Organizations.Get(ctx, c.OrganizationID); err != nil {
			return fmt.Errorf("organization %q: %w", c.OrganizationID, err)
		}
		return r.APIKeys.Create(ctx, key)
	})
	if err != nil {
		return "", err
	}
	return plain, nil
}
