// Package routetest is the harness the tests of the HTTP adapter share, the
// kit's and every context's route package's: an authenticator, a router of
// one group of routes, a request with a token, a stub of a use case, a fake
// of the access token verifier and the check of a list's query. Tests
// import it; the service never does (depguard: tests-only).
package routetest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Authenticator authenticates with tokens, answers errors as the routes
// do, and logs nothing.
func Authenticator(tokens accessports.TokenVerifier) httpapi.Authenticator {
	log := slog.New(slog.DiscardHandler)
	return httpapi.Authenticator{Tokens: tokens, Errors: httpapi.ErrorMapper{Log: log}, Log: log}
}

// RouterOf serves the group of routes that routes builds, every token
// standing for principal.
func RouterOf(principal accessports.Principal, routes func(httpapi.Authenticator, httpapi.ErrorMapper) httpapi.Routes) *mux.Router {
	auth := Authenticator(&Tokens{Principal: principal})
	r := mux.NewRouter()
	routes(auth, auth.Errors).Register(r)
	return r
}

// Recording is a stub of a use case: it appends each command to *calls and
// answers what answer returns for it.
func Recording[C, R any](calls *[]C, answer func(C) (R, error)) application.HandlerFunc[C, R] {
	return func(_ context.Context, c C) (R, error) {
		*calls = append(*calls, c)
		return answer(c)
	}
}

// ServeWithToken answers a request with a bearer token, its body JSON
// unless it is empty.
func ServeWithToken(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(context.Background(), method, target, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer tok")
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Tokens is an AccessTokenVerifier that answers one principal or error
// and remembers the tokens it was asked about.
type Tokens struct {
	Principal accessports.Principal
	Err       error
	Asked     []string
}

// VerifyAccessToken implements accessports.TokenVerifier.
func (f *Tokens) VerifyAccessToken(_ context.Context, token string) (accessports.Principal, error) {
	f.Asked = append(f.Asked, token)
	if f.Err != nil {
		return accessports.Principal{}, f.Err
	}
	return f.Principal, nil
}

// CheckQuery checks that parse reads query as want, or when wantField is
// not "" refuses it with a *domain.ValidationError naming wantField (the
// first one that errors.As finds), and returns parse's error.
func CheckQuery[T comparable](t *testing.T, name string, parse func(url.Values) (T, error), query string, want T, wantField string) error {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatalf("bad test query %q: %v", query, err)
	}
	got, err := parse(q)
	if wantField == "" {
		if err != nil {
			t.Fatalf("%s(%q) = %v, want no error", name, query, err)
		}
		if got != want {
			t.Errorf("%s(%q) = %+v, want %+v", name, query, got, want)
		}
		return nil
	}
	var ve *domain.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%s(%q) = %v (%T), want a *domain.ValidationError", name, query, err, err)
	}
	if ve.Field != wantField {
		t.Fatalf("%s(%q) names %q first, want %q", name, query, ve.Field, wantField)
	}
	return err
}
