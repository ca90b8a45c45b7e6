package application

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// ListAPIKeys asks for an organization's API keys (`fulfillment apikey
// list`), revoked ones included.
type ListAPIKeys struct {
	OrganizationID string
}

// SpanAttributes implements Attributer.
func (q ListAPIKeys) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("organization.id", q.OrganizationID)}
}

// ListAPIKeysHandler answers ListAPIKeys.
type ListAPIKeysHandler struct {
	keys ports.APIKeyRepository
}

// NewListAPIKeysHandler builds the handler.
func NewListAPIKeysHandler(keys ports.APIKeyRepository) *ListAPIKeysHandler {
	return &ListAPIKeysHandler{keys: keys}
}

// Handle returns the keys, oldest first; what is stored of them (never a
// key itself).
func (h *ListAPIKeysHandler) Handle(ctx context.Context, q ListAPIKeys) ([]domain.APIKey, error) {
	return h.keys.ListByOrganization(ctx, q.OrganizationID)
}
