package access

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// ListAPIKeys asks for an organization's API keys (`fulfillment apikey
// list`), revoked ones included.
type ListAPIKeys struct {
	OrganizationID string
}

// SpanAttributes implements application.Attributer.
func (q ListAPIKeys) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID)
}

// NewListAPIKeysHandler builds the handler: the keys, oldest first; what
// is stored of them (never a key itself).
func NewListAPIKeysHandler(keys accessports.APIKeyRepository) application.HandlerFunc[ListAPIKeys, []domain.APIKey] {
	return func(ctx context.Context, q ListAPIKeys) ([]domain.APIKey, error) {
		return keys.ListByOrganization(ctx, q.OrganizationID)
	}
}
