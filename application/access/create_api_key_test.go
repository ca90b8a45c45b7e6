package access_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	accessapp "github.com/acme3pl/fulfillment/application/access"
	"github.com/acme3pl/fulfillment/application/apptest"
	"github.com/acme3pl/fulfillment/domain"
)

func TestCreateAPIKey(t *testing.T) {
	db := apptest.NewDB()
	db.State.Orgs["org_keys"] = domain.Organization{ID: "org_keys", Name: "Keys"}
	now := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	app := apptest.NewApp(db, domain.Sandbox, &apptest.Clock{At: now}, noop.NewTracerProvider().Tracer("test"))
	c := accessapp.CreateAPIKey{Actor: apptest.Operator, OrganizationID: "org_keys", Name: "shop", Scopes: []domain.Scope{domain.ScopeShipments, domain.ScopeInventory}}
	plain, err := app.Access.CreateAPIKey.Handle(context.Background(), c)
	if err != nil || plain != "fk_test_sandbox-secret" {
		t.Fatalf("key %q, %v", plain, err)
	}
	want := []domain.APIKey{{
		ID: "key_1", OrganizationID: "org_keys", Name: "shop", Environment: domain.Sandbox, Prefix: "fk_test_abcd",
		Hash: []byte("hash-of-the-key"), Scopes: c.Scopes, CreatedAt: now,
	}}
	if !reflect.DeepEqual(db.State.Keys, want) || bytes.Contains(db.State.Keys[0].Hash, []byte(plain)) {
		t.Fatalf("stored %+v, want %+v (the hash, never the key)", db.State.Keys, want)
	}

	c.OrganizationID = "org_missing"
	if _, err := app.Access.CreateAPIKey.Handle(context.Background(), c); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown organization: %v, want ErrNotFound", err)
	}
	if len(db.State.Keys) != 1 {
		t.Fatalf("%d keys stored, want the first only", len(db.State.Keys))
	}
}

// TestCreateAPIKeyNeedsKnownScopes: a key without scopes, or with one an API
// key cannot hold, is refused before anything is stored.
func TestCreateAPIKeyNeedsKnownScopes(t *testing.T) {
	db := apptest.NewDB()
	db.State.Orgs["org_keys"] = domain.Organization{ID: "org_keys", Name: "Keys"}
	app := apptest.NewApp(db, domain.Sandbox, &apptest.Clock{At: time.Now()}, noop.NewTracerProvider().Tracer("test"))
	for _, scopes := range [][]domain.Scope{nil, {}, {"bogus"}, {domain.ScopeShipments, domain.ScopeWarehouse}} {
		_, err := app.Access.CreateAPIKey.Handle(context.Background(), accessapp.CreateAPIKey{Actor: apptest.Operator, OrganizationID: "org_keys", Scopes: scopes})
		var ve *domain.ValidationError
		if !errors.As(err, &ve) || ve.Field != "scopes" {
			t.Errorf("scopes %v: %v, want a validation error of scopes", scopes, err)
		}
	}
	if len(db.State.Keys) != 0 {
		t.Fatalf("%d keys stored, want none", len(db.State.Keys))
	}
}
