package application_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// keyGenerator makes the same key every time.
type keyGenerator struct{}

func (keyGenerator) GenerateAPIKey(env domain.Environment) (string, []byte, string, error) {
	return "fk_test_" + string(env) + "-secret", []byte("hash-of-the-key"), "fk_test_abcd", nil
}

func TestCreateAPIKey(t *testing.T) {
	db := newFakeDB()
	db.state.orgs["org_keys"] = domain.Organization{ID: "org_keys", Name: "Keys"}
	now := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	app := fakeApp(db, domain.Sandbox, &fakeClock{now: now}, noop.NewTracerProvider().Tracer("test"))
	c := application.CreateAPIKey{OrganizationID: "org_keys", Name: "shop", Scopes: []domain.Scope{domain.ScopeShipments, domain.ScopeInventory}}
	plain, err := app.CreateAPIKey.Handle(context.Background(), c)
	if err != nil || plain != "fk_test_sandbox-secret" {
		t.Fatalf("key %q, %v", plain, err)
	}
	want := []domain.APIKey{{
		ID: "key_1", OrganizationID: "org_keys", Name: "shop", Environment: domain.Sandbox, Prefix: "fk_test_abcd",
		Hash: []byte("hash-of-the-key"), Scopes: c.Scopes, CreatedAt: now,
	}}
	if !reflect.DeepEqual(db.state.keys, want) || bytes.Contains(db.state.keys[0].Hash, []byte(plain)) {
		t.Fatalf("stored %+v, want %+v (the hash, never the key)", db.state.keys, want)
	}

	c.OrganizationID = "org_missing"
	if _, err := app.CreateAPIKey.Handle(context.Background(), c); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown organization: %v, want ErrNotFound", err)
	}
	if len(db.state.keys) != 1 {
		t.Fatalf("%d keys stored, want the first only", len(db.state.keys))
	}
}
