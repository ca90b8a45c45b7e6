package operator

import (
	"context"
	"fmt"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/operator"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// UseCases are the console's sign-in and sessions, each with its span and
// log line.
type UseCases struct {
	// IssueSignInLink answers the link's token (sandbox only).
	IssueSignInLink application.Handler[IssueSignInLink, string]
	// RedeemSignInLink uses a link once and starts its session.
	RedeemSignInLink application.Handler[RedeemSignInLink, Started]
	// StartSession starts a session of a principal the provider signed in.
	StartSession application.Handler[StartSession, Started]
	// ResumeSession is the principal of a cookie's session, still open.
	ResumeSession application.Handler[ResumeSession, operator.Principal]
	// EndSession ends a session (logout).
	EndSession application.Handler[EndSession, struct{}]
	// RevokeSessions ends every session of a subject and says how many.
	RevokeSessions application.Handler[RevokeSessions, int]
}

// Started is a session just started: the cookie's value and who it is.
type Started struct {
	ID        string
	Principal operator.Principal
}

// New builds the use cases.
func New(d application.Deps[operatorports.Repositories]) *UseCases {
	return &UseCases{
		IssueSignInLink: application.Decorate("IssueSignInLink",
			NewIssueSignInLinkHandler(d.Repos.OperatorSessions, d.Clock, d.Environment), d.Tracer, d.Log),
		RedeemSignInLink: application.Decorate("RedeemSignInLink", NewRedeemSignInLinkHandler(d.UnitOfWork, d.Clock), d.Tracer, d.Log),
		StartSession:     application.Decorate("StartSession", NewStartSessionHandler(d.Repos.OperatorSessions, d.Clock), d.Tracer, d.Log),
		ResumeSession:    application.Decorate("ResumeSession", NewResumeSessionHandler(d.Repos.OperatorSessions, d.Clock), d.Tracer, d.Log),
		EndSession:       application.Decorate("EndSession", NewEndSessionHandler(d.Repos.OperatorSessions), d.Tracer, d.Log),
		RevokeSessions:   application.Decorate("RevokeSessions", NewRevokeSessionsHandler(d.Repos.OperatorSessions), d.Tracer, d.Log),
	}
}

// errSignedOut is operator.ErrSignedOut as the error kinds know it: invalid
// credentials, a client's matter, never a fault of the service.
var errSignedOut = fmt.Errorf("%w: %w", accessports.ErrInvalidCredentials, operator.ErrSignedOut)

// errLinkRefused is operator.ErrLinkRefused as the error kinds know it.
var errLinkRefused = fmt.Errorf("%w: %w", accessports.ErrInvalidCredentials, operator.ErrLinkRefused)

// newSession stores a new session of p started at s.Started under a new
// random ID, and answers the ID.
func newSession(ctx context.Context, store operatorports.Sessions, s operator.Session) (Started, error) {
	id, err := operator.NewSecret()
	if err != nil {
		return Started{}, err
	}
	if err := store.CreateSession(ctx, operator.HashSecret(id), s); err != nil {
		return Started{}, fmt.Errorf("start a session: %w", err)
	}
	return Started{ID: id, Principal: s.Principal}, nil
}
