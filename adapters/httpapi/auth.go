package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Authenticator guards the /v0 routes, each in one of two ways: a Bearer
// access token (the OAuth endpoints, errors as problem+json) or a Bearer API
// key (the order intake, errors in its own shape). Either way admission
// control comes first (the request deadline and load shedding), then the
// credentials and the route's scopes, before any validation of the request:
// a request with bad credentials and a bad parameter gets 401. Then the
// rate limit of an OAuth route (Limits), still before any validation. The
// handler finds the caller with PrincipalFrom.
type Authenticator struct {
	Tokens    accessports.TokenVerifier
	Keys      accessports.APIKeyVerifier
	Errors    ErrorMapper
	Admission *Admission // nil: none (unit tests of one handler)
	// Limits are the rate limits of the OAuth routes: per organization on
	// an organization's routes, per warehouse on a warehouse's; the API
	// key routes (the order intake) are never limited. nil: none.
	Limits RateLimiter
	Log    *slog.Logger
}

// RequireScope guards an organization's OAuth route: an organization's
// access token that holds scope. A warehouse's token lacks it, whatever its
// scope claim says.
func (a Authenticator) RequireScope(scope domain.Scope, next http.HandlerFunc) http.Handler {
	return a.requireToken(scope, isOrganization, limited(a.Limits, ratelimit.ScopeOrg, next))
}

// RequireScopeStreamed is RequireScope for a route that writes its answer
// as it makes it (an invoice's charges as CSV): admitted by
// Admission.GuardStream, which does not hold the answer in memory.
func (a Authenticator) RequireScopeStreamed(scope domain.Scope, next http.HandlerFunc) http.Handler {
	return a.Admission.GuardStream(a.Errors.Write, a.authenticate(a.tokenOfKind(scope, isOrganization), a.Errors.Write,
		[]domain.Scope{scope}, limited(a.Limits, ratelimit.ScopeOrg, next)))
}

func isOrganization(p accessports.Principal) bool { return p.OrganizationID != "" }

// RequireWarehouse guards a warehouse's route (/v0/warehouse/...): a token of
// an active warehouse with scope warehouse. An organization's token lacks it.
func (a Authenticator) RequireWarehouse(next http.HandlerFunc) http.Handler {
	return a.requireToken(domain.ScopeWarehouse, func(p accessports.Principal) bool { return p.WarehouseID != "" },
		limited(a.Limits, ratelimit.ScopeWarehouse, next))
}

// requireToken guards a route of access tokens whose principal is of the
// route's kind (organization or warehouse) and holds scope.
func (a Authenticator) requireToken(scope domain.Scope, ofKind func(accessports.Principal) bool, next http.Handler) http.Handler {
	return a.require(a.tokenOfKind(scope, ofKind), a.Errors.Write, []domain.Scope{scope}, next)
}

// tokenOfKind verifies an access token whose principal is of a route's
// kind: another kind lacks the route's scope.
func (a Authenticator) tokenOfKind(scope domain.Scope, ofKind func(accessports.Principal) bool) func(context.Context, string) (accessports.Principal, error) {
	return func(ctx context.Context, token string) (accessports.Principal, error) {
		p, err := a.Tokens.VerifyAccessToken(ctx, token)
		if err == nil && !ofKind(p) {
			return accessports.Principal{}, &accessports.InsufficientScopeError{Missing: []domain.Scope{scope}}
		}
		return p, err
	}
}

// RequireAPIKey guards a route of API keys: a key that holds every one of
// scopes. write answers its errors in the route's shape; a 403 lists every
// scope missing, in the order of scopes.
func (a Authenticator) RequireAPIKey(write ErrorWriter, scopes []domain.Scope, next http.HandlerFunc) http.Handler {
	verify := func(ctx context.Context, key string) (accessports.Principal, error) {
		return a.Keys.VerifyAPIKey(ctx, key)
	}
	return a.require(verify, write, scopes, next)
}

func (a Authenticator) require(verify func(context.Context, string) (accessports.Principal, error), write ErrorWriter,
	scopes []domain.Scope, next http.Handler,
) http.Handler {
	return a.Admission.Guard(write, a.authenticate(verify, write, scopes, next))
}

// authenticate runs next for a caller whose credentials verify and hold
// every one of scopes, and answers the others.
func (a Authenticator) authenticate(verify func(context.Context, string) (accessports.Principal, error), write ErrorWriter,
	scopes []domain.Scope, next http.Handler,
) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		credential, ok := bearer(r)
		if !ok {
			write(w, r, fmt.Errorf("no Authorization: Bearer credentials: %w", accessports.ErrInvalidCredentials))
			return
		}
		p, err := verify(r.Context(), credential)
		if err != nil {
			if errors.Is(err, accessports.ErrInvalidCredentials) {
				a.Log.DebugContext(r.Context(), "credentials refused", slog.String("reason", err.Error()))
			}
			write(w, r, err)
			return
		}
		var missing []domain.Scope
		for _, s := range scopes {
			if !p.Has(s) {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			write(w, r, &accessports.InsufficientScopeError{Missing: missing})
			return
		}
		next.ServeHTTP(w, r.WithContext(contextWithPrincipal(r.Context(), p)))
	})
}

// bearer returns the credentials of an "Authorization: Bearer …" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
