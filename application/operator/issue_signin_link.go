package operator

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/ports"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// IssueSignInLink asks for a one-time sign-in link for Subject with the
// highest of Roles, usable for TTL (0: operator.DefaultLinkTTL).
type IssueSignInLink struct {
	Subject string
	Roles   []string
	TTL     time.Duration
}

// SpanAttributes implements Attributer: the subject is an operator's
// name, not a customer's data.
func (c IssueSignInLink) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("operator.subject", c.Subject)}
}

// ErrLinksInProduction: sign-in links exist in sandbox only; production
// signs in through the identity provider.
var ErrLinksInProduction = fmt.Errorf("%w: sign-in links are for sandbox only (production signs in with CONSOLE_OIDC_ISSUER)",
	domain.ErrInvalidState)

// NewIssueSignInLinkHandler builds the handler: the link's token, whose
// hash only is stored.
func NewIssueSignInLinkHandler(store operatorports.Sessions, clock ports.Clock, env domain.Environment) application.HandlerFunc[IssueSignInLink, string] {
	return func(ctx context.Context, c IssueSignInLink) (string, error) {
		if env != domain.Sandbox {
			return "", ErrLinksInProduction
		}
		link, err := operator.NewSignInLink(c.Subject, c.Roles, c.TTL, clock.Now())
		if err != nil {
			return "", err
		}
		token, err := operator.NewSecret()
		if err != nil {
			return "", err
		}
		if err := store.CreateLink(ctx, operator.HashSecret(token), link); err != nil {
			return "", fmt.Errorf("store the sign-in link: %w", err)
		}
		return token, nil
	}
}
