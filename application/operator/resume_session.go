package operator

import (
	"context"
	"fmt"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/ports"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// ResumeSession asks for the principal of the session whose ID a
// request's cookie carries.
type ResumeSession struct {
	ID string
}

// NewResumeSessionHandler builds the handler: the session's principal,
// its last use set to now; a session past its idle or absolute timeout is
// removed and, like an unknown, ended or revoked one, refused
// (accessports.ErrInvalidCredentials, operator.ErrSignedOut).
func NewResumeSessionHandler(store operatorports.Sessions, clock ports.Clock) application.HandlerFunc[ResumeSession, operator.Principal] {
	return func(ctx context.Context, c ResumeSession) (operator.Principal, error) {
		if !operator.WellFormedSecret(c.ID) {
			return operator.Principal{}, errSignedOut
		}
		hash := operator.HashSecret(c.ID)
		s, ok, err := store.Session(ctx, hash)
		if err != nil {
			return operator.Principal{}, fmt.Errorf("resume a session: %w", err)
		}
		if !ok {
			return operator.Principal{}, errSignedOut
		}
		now := clock.Now()
		if s.Expired(now) {
			if _, err := store.EndSession(ctx, hash); err != nil {
				return operator.Principal{}, fmt.Errorf("end an expired session: %w", err)
			}
			return operator.Principal{}, errSignedOut
		}
		if err := store.Touch(ctx, hash, now); err != nil {
			return operator.Principal{}, fmt.Errorf("resume a session: %w", err)
		}
		return s.Principal, nil
	}
}
