package operator

import (
	"context"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/ports"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// StartSession starts a session of the principal the identity provider
// signed in (its subject, e-mail and role of the roles claim).
type StartSession struct {
	Principal operator.Principal
}

// NewStartSessionHandler builds the handler: a principal without a
// subject or a role is refused (a *domain.ValidationError), and no session
// starts.
func NewStartSessionHandler(store operatorports.Sessions, clock ports.Clock) application.HandlerFunc[StartSession, Started] {
	return func(ctx context.Context, c StartSession) (Started, error) {
		s, err := operator.NewSession(c.Principal, clock.Now())
		if err != nil {
			return Started{}, err
		}
		return newSession(ctx, store, s)
	}
}
