package identity

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

type fixedPrincipal accessports.Principal

func (f fixedPrincipal) VerifyAccessToken(context.Context, string) (accessports.Principal, error) {
	return accessports.Principal(f), nil
}

func TestActiveWarehouses(t *testing.T) {
	active := map[string]bool{"wh_east": true, "wh_closed": false}
	lookups := 0
	gate := func(p accessports.Principal) *ActiveWarehouses {
		a := &ActiveWarehouses{tokens: fixedPrincipal(p), now: time.Now, cache: newShortCache[string, bool](time.Hour),
			active: func(_ context.Context, id string) (bool, error) { lookups++; return active[id], nil }}
		return a
	}
	tests := []struct {
		name    string
		p       accessports.Principal
		wantErr error
	}{
		{name: "organization token, not looked up", p: accessports.Principal{OrganizationID: "org_acme"}},
		{name: "active warehouse", p: accessports.Principal{WarehouseID: "wh_east", Scopes: []domain.Scope{domain.ScopeWarehouse}}},
		{name: "inactive warehouse", p: accessports.Principal{WarehouseID: "wh_closed"}, wantErr: accessports.ErrInvalidCredentials},
		{name: "unknown warehouse", p: accessports.Principal{WarehouseID: "wh_nowhere"}, wantErr: accessports.ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gate(tt.p).VerifyAccessToken(context.Background(), "token")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && got.WarehouseID != tt.p.WarehouseID {
				t.Fatalf("principal = %+v, want %+v", got, tt.p)
			}
		})
	}
	if lookups != 3 {
		t.Fatalf("%d look-ups, want 3 (none for the organization's token)", lookups)
	}

	a := gate(accessports.Principal{WarehouseID: "wh_east"})
	for range 3 {
		if _, err := a.VerifyAccessToken(context.Background(), "token"); err != nil {
			t.Fatal(err)
		}
	}
	if lookups != 4 {
		t.Fatalf("%d look-ups after three verifications of one warehouse, want 1 more (cached)", lookups)
	}
}
