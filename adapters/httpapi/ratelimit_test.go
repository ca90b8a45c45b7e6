package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/httpapi/routetest"
	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// The rate limit of an OAuth route comes after the credentials and before
// the handler: the organization's bucket (the warehouse's on a warehouse's
// route), the IETF headers on every answer, and 429 rate_limited with
// Retry-After, the handler not run, beyond the burst. A refused token
// takes nothing from a bucket.
func TestAuthenticatorRateLimits(t *testing.T) {
	limit, err := domain.ParseRateLimit("1/h", 2)
	if err != nil {
		t.Fatal(err)
	}
	discard := slog.New(slog.DiscardHandler)
	limiter := ratelimit.NewMemory(limit, telemetry.NewMetrics().FairUse, discard)
	tokens := &routetest.Tokens{Principal: accessports.Principal{OrganizationID: "org_acme", Scopes: []domain.Scope{domain.ScopeLocations}}}
	auth := httpapi.Authenticator{Tokens: tokens, Errors: httpapi.ErrorMapper{Log: discard}, Limits: limiter, Log: discard}
	ran := 0
	h := auth.RequireScope(domain.ScopeLocations, func(w http.ResponseWriter, _ *http.Request) {
		ran++
		httpapi.WriteJSON(w, http.StatusOK, []string{})
	})
	get := func(authorization string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/v0/warehouses", nil)
		r.Header.Set("Authorization", authorization)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	tokens.Err = accessports.ErrInvalidCredentials
	if w := get("Bearer bad"); w.Code != 401 || w.Header().Get("RateLimit-Policy") != "" {
		t.Fatalf("a refused token: %d %v, want 401 without rate-limit headers", w.Code, w.Header())
	}
	tokens.Err = nil
	for i, want := range []struct {
		status                int
		remaining, retryAfter string
	}{{200, `"org";r=1;t=0`, ""}, {200, `"org";r=0;t=3600`, ""}, {429, `"org";r=0;t=3600`, "3600"}} {
		w := get("Bearer good")
		if w.Code != want.status || w.Header().Get("RateLimit-Policy") != `"org";q=2;w=7200` ||
			w.Header().Get("RateLimit") != want.remaining || w.Header().Get("Retry-After") != want.retryAfter {
			t.Errorf("request %d: %d %v, want %d with %s and Retry-After %q", i, w.Code, w.Header(), want.status, want.remaining, want.retryAfter)
		}
		if w.Code == 429 {
			if p := problemOf(t, w); p.Code != "rate_limited" || p.Status != 429 {
				t.Errorf("429 problem %+v", p)
			}
		}
	}
	if ran != 2 {
		t.Errorf("the handler ran %d times, want 2 (the limited request does nothing)", ran)
	}

	// A warehouse's route takes from the warehouse's bucket.
	tokens.Principal = accessports.Principal{WarehouseID: "org_acme", Scopes: []domain.Scope{domain.ScopeWarehouse}}
	wh := auth.RequireWarehouse(func(w http.ResponseWriter, _ *http.Request) { httpapi.WriteJSON(w, http.StatusOK, []string{}) })
	r := httptest.NewRequest(http.MethodGet, "/v0/warehouse/shipments", nil)
	r.Header.Set("Authorization", "Bearer wms")
	w := httptest.NewRecorder()
	wh.ServeHTTP(w, r)
	if w.Code != 200 || w.Header().Get("RateLimit") != `"warehouse";r=1;t=0` {
		t.Errorf("a warehouse named like the organization: %d %v, want its own bucket", w.Code, w.Header())
	}
}

// A limiter whose store cannot be asked serves the request with the policy
// but without RateLimit.
type unknownBucket struct{ limit domain.RateLimit }

func (u unknownBucket) Allow(_ context.Context, scope, _ string) ratelimit.Decision {
	return ratelimit.Decision{Allowed: true, Scope: scope, Limit: u.limit}
}

func TestAuthenticatorRateLimitsFailOpen(t *testing.T) {
	limit, err := domain.ParseRateLimit("20/s", 40)
	if err != nil {
		t.Fatal(err)
	}
	discard := slog.New(slog.DiscardHandler)
	tokens := &routetest.Tokens{Principal: accessports.Principal{OrganizationID: "org_acme", Scopes: []domain.Scope{domain.ScopeLocations}}}
	auth := httpapi.Authenticator{Tokens: tokens, Errors: httpapi.ErrorMapper{Log: discard}, Limits: unknownBucket{limit}, Log: discard}
	h := auth.RequireScope(domain.ScopeLocations, func(w http.ResponseWriter, _ *http.Request) { httpapi.WriteJSON(w, http.StatusOK, []string{}) })
	r := httptest.NewRequest(http.MethodGet, "/v0/warehouses", nil)
	r.Header.Set("Authorization", "Bearer good")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || w.Header().Get("RateLimit-Policy") != `"org";q=40;w=2` || w.Header().Get("RateLimit") != "" {
		t.Errorf("%d %v, want 200 with the policy and without RateLimit", w.Code, w.Header())
	}
}
