package operator

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/operator"
)

// Sessions are the console's sessions and one-time sign-in links
// (docs/console.md), each keyed by the SHA-256 of its secret
// (operator.HashSecret): the store never holds a cookie's or a link's value.
type Sessions interface {
	// CreateLink stores a sign-in link under hash.
	CreateLink(ctx context.Context, hash []byte, l operator.SignInLink) error
	// UseLink marks the link of hash used at now and returns it, when it
	// is unused and usable at now; false otherwise. Of concurrent calls for
	// one link exactly one gets it.
	UseLink(ctx context.Context, hash []byte, now time.Time) (operator.SignInLink, bool, error)
	// CreateSession stores a session under hash.
	CreateSession(ctx context.Context, hash []byte, s operator.Session) error
	// Session is the session of hash; false when there is none (never
	// started, ended, revoked).
	Session(ctx context.Context, hash []byte) (operator.Session, bool, error)
	// Touch sets the session's last use to at.
	Touch(ctx context.Context, hash []byte, at time.Time) error
	// EndSession removes the session of hash; false when there was none.
	EndSession(ctx context.Context, hash []byte) (bool, error)
	// EndSessionsOf removes every session of subject and says how many.
	EndSessionsOf(ctx context.Context, subject string) (int, error)
}
