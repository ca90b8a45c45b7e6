package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// Authenticator guards the OAuth endpoints: admission control (the request
// deadline and load shedding), then a Bearer access token with the route's
// scope. It runs before any validation of the request, so a request with a
// bad token and a bad parameter gets 401.
type Authenticator struct {
	Tokens    ports.AccessTokenVerifier
	Errors    ErrorMapper
	Admission *Admission // nil: none (unit tests of one handler)
	Log       *slog.Logger
}

// bearer returns the token of an "Authorization: Bearer …" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// RequireScope wraps next with admission control, token verification and a
// scope check.
func (a Authenticator) RequireScope(scope domain.Scope, next http.HandlerFunc) http.Handler {
	return a.Admission.Guard(a.Errors.Write, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r)
		if !ok {
			a.Errors.Write(w, r, fmt.Errorf("no Authorization: Bearer token: %w", ports.ErrInvalidCredentials))
			return
		}
		p, err := a.Tokens.VerifyAccessToken(r.Context(), token)
		if err != nil {
			if errors.Is(err, ports.ErrInvalidCredentials) {
				a.Log.DebugContext(r.Context(), "access token refused", slog.String("reason", err.Error()))
			}
			a.Errors.Write(w, r, err)
			return
		}
		if !p.Has(scope) {
			a.Errors.Write(w, r, &ports.InsufficientScopeError{Missing: []domain.Scope{scope}})
			return
		}
		next.ServeHTTP(w, r.WithContext(contextWithPrincipal(r.Context(), p)))
	}))
}
