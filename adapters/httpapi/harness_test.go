package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/application"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// What the tests of the routes share: an authenticator, a router of one
// group of routes, a request with a token.

// testAuthenticator authenticates with tokens, answers errors as the routes
// do, and logs nothing.
func testAuthenticator(tokens accessports.TokenVerifier) httpapi.Authenticator {
	log := slog.New(slog.DiscardHandler)
	return httpapi.Authenticator{Tokens: tokens, Errors: httpapi.ErrorMapper{Log: log}, Log: log}
}

// routerOf serves the group of routes that routes builds, every token
// standing for principal.
func routerOf(principal accessports.Principal, routes func(httpapi.Authenticator, httpapi.ErrorMapper) httpapi.Routes) *mux.Router {
	auth := testAuthenticator(&fakeTokens{principal: principal})
	r := mux.NewRouter()
	routes(auth, auth.Errors).Register(r)
	return r
}

// recording is a stub of a use case: it appends each command to *calls and
// answers what answer returns for it.
func recording[C, R any](calls *[]C, answer func(C) (R, error)) application.HandlerFunc[C, R] {
	return func(_ context.Context, c C) (R, error) {
		*calls = append(*calls, c)
		return answer(c)
	}
}

// serveWithToken answers a request with a bearer token, its body JSON
// unless it is empty.
func serveWithToken(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer tok")
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
