package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/httpapi/routetest"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

const (
	wwwInvalidToken      = `Bearer realm="fulfillment", error="invalid_token"`
	wwwInsufficientScope = `Bearer realm="fulfillment", error="insufficient_scope", scope="locations"`
)

func TestAuthenticatorRequireScope(t *testing.T) {
	locations := accessports.Principal{OrganizationID: "org_acme", Subject: "user_1",
		Scopes: []domain.Scope{domain.ScopeInvoices, domain.ScopeLocations}}
	invoicesOnly := accessports.Principal{OrganizationID: "org_acme", Subject: "user_1",
		Scopes: []domain.Scope{domain.ScopeInvoices}}

	tests := []struct {
		name          string
		authorization string // "" sends no header
		principal     accessports.Principal
		verifyErr     error
		wantStatus    int
		wantCode      string // problem code; "" for the handler's 200
		wantWWW       string
		wantAsked     []string // tokens the verifier saw
		wantPrincipal accessports.Principal
	}{
		{name: "no header", wantStatus: 401, wantCode: "invalid_token", wantWWW: wwwInvalidToken},
		{name: "basic scheme", authorization: "Basic x", principal: locations,
			wantStatus: 401, wantCode: "invalid_token", wantWWW: wwwInvalidToken},
		{name: "bearer without token", authorization: "Bearer ", principal: locations,
			wantStatus: 401, wantCode: "invalid_token", wantWWW: wwwInvalidToken},
		{name: "bearer alone", authorization: "Bearer", principal: locations,
			wantStatus: 401, wantCode: "invalid_token", wantWWW: wwwInvalidToken},
		{name: "token refused", authorization: "Bearer tok-1",
			verifyErr:  fmt.Errorf("token expired at 12:00 (%w)", accessports.ErrInvalidCredentials),
			wantStatus: 401, wantCode: "invalid_token", wantWWW: wwwInvalidToken, wantAsked: []string{"tok-1"}},
		{name: "identity provider down", authorization: "Bearer tok-1",
			verifyErr:  fmt.Errorf("fetch JWKS: %w", domain.ErrUnavailable),
			wantStatus: 503, wantCode: "unavailable", wantAsked: []string{"tok-1"}},
		{name: "missing scope", authorization: "Bearer tok-1", principal: invoicesOnly,
			wantStatus: 403, wantCode: "insufficient_scope", wantWWW: wwwInsufficientScope, wantAsked: []string{"tok-1"}},
		{name: "warehouse token, even with the scope", authorization: "Bearer tok-1",
			principal:  accessports.Principal{WarehouseID: "wh_east", Scopes: []domain.Scope{domain.ScopeLocations, domain.ScopeWarehouse}},
			wantStatus: 403, wantCode: "insufficient_scope", wantWWW: wwwInsufficientScope, wantAsked: []string{"tok-1"}},
		{name: "ok", authorization: "Bearer tok-1", principal: locations,
			wantStatus: 200, wantAsked: []string{"tok-1"}, wantPrincipal: locations},
		{name: "scheme in lower case", authorization: "bearer tok-2", principal: locations,
			wantStatus: 200, wantAsked: []string{"tok-2"}, wantPrincipal: locations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokens := &routetest.Tokens{Principal: tt.principal, Err: tt.verifyErr}
			auth := routetest.Authenticator(tokens)
			var reached *accessports.Principal
			h := auth.RequireScope(domain.ScopeLocations, func(w http.ResponseWriter, r *http.Request) {
				p := httpapi.PrincipalFrom(r.Context())
				reached = &p
				w.WriteHeader(http.StatusOK)
			})

			r := httptest.NewRequest(http.MethodGet, "/v0/warehouses", nil)
			if tt.authorization != "" {
				r.Header.Set("Authorization", tt.authorization)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)

			if w.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tt.wantStatus, w.Body.String())
			}
			if got := w.Header().Get("WWW-Authenticate"); got != tt.wantWWW {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.wantWWW)
			}
			if !reflect.DeepEqual(tokens.Asked, tt.wantAsked) {
				t.Errorf("verifier asked about %q, want %q", tokens.Asked, tt.wantAsked)
			}
			if tt.wantCode == "" {
				if reached == nil || !reflect.DeepEqual(*reached, tt.wantPrincipal) {
					t.Errorf("handler got principal %+v, want %+v", reached, tt.wantPrincipal)
				}
				return
			}
			if reached != nil {
				t.Errorf("handler ran for a refused request")
			}
			if p := problemOf(t, w); p.Code != tt.wantCode || p.Status != tt.wantStatus {
				t.Errorf("problem = %+v, want code %q, status %d", p, tt.wantCode, tt.wantStatus)
			}
			if strings.Contains(w.Body.String(), "12:00") || strings.Contains(w.Body.String(), "JWKS") {
				t.Errorf("body leaks the verifier's reason: %s", w.Body.String())
			}
		})
	}
}

func TestAuthenticatorRequireWarehouse(t *testing.T) {
	east := accessports.Principal{WarehouseID: "wh_east", Subject: "wms", Scopes: []domain.Scope{domain.ScopeWarehouse}}
	const wwwWarehouse = `Bearer realm="fulfillment", error="insufficient_scope", scope="warehouse"`
	tests := []struct {
		name       string
		principal  accessports.Principal
		verifyErr  error
		wantStatus int
		wantWWW    string
	}{
		{name: "warehouse token", principal: east, wantStatus: 200},
		{name: "warehouse token without the scope", principal: accessports.Principal{WarehouseID: "wh_east", Scopes: []domain.Scope{}},
			wantStatus: 403, wantWWW: wwwWarehouse},
		{name: "organization token, even with the scope", principal: accessports.Principal{OrganizationID: "org_acme",
			Scopes: []domain.Scope{domain.ScopeWarehouse, domain.ScopeShipments}}, wantStatus: 403, wantWWW: wwwWarehouse},
		{name: "unknown or inactive warehouse", verifyErr: fmt.Errorf("warehouse inactive: %w", accessports.ErrInvalidCredentials),
			wantStatus: 401, wantWWW: wwwInvalidToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auth := routetest.Authenticator(&routetest.Tokens{Principal: tt.principal, Err: tt.verifyErr})
			var reached string
			h := auth.RequireWarehouse(func(w http.ResponseWriter, r *http.Request) {
				reached = httpapi.PrincipalFrom(r.Context()).WarehouseID
				w.WriteHeader(http.StatusOK)
			})
			w := routetest.ServeWithToken(h, http.MethodGet, "/v0/warehouse/shipments", "")
			if w.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tt.wantStatus, w.Body.String())
			}
			if got := w.Header().Get("WWW-Authenticate"); got != tt.wantWWW {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.wantWWW)
			}
			if (w.Code == 200) != (reached == "wh_east") {
				t.Errorf("handler reached with warehouse %q at status %d", reached, w.Code)
			}
		})
	}
}
