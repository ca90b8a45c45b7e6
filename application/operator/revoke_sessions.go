package operator

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// RevokeSessions ends every session of Subject: each is refused at its
// next request.
type RevokeSessions struct {
	Subject string
}

// SpanAttributes implements Attributer.
func (c RevokeSessions) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("operator.subject", c.Subject)}
}

// NewRevokeSessionsHandler builds the handler: how many sessions it
// ended (0 for a subject with none).
func NewRevokeSessionsHandler(store operatorports.Sessions) application.HandlerFunc[RevokeSessions, int] {
	return func(ctx context.Context, c RevokeSessions) (int, error) {
		if strings.TrimSpace(c.Subject) == "" {
			return 0, domain.Invalid("subject", "must not be empty")
		}
		n, err := store.EndSessionsOf(ctx, c.Subject)
		if err != nil {
			return 0, fmt.Errorf("revoke sessions: %w", err)
		}
		return n, nil
	}
}
