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
	"github.com/acme3pl/fulfillment/application/apptest"
	"github.com/acme3pl/fulfillment/domain"
)

func TestCreateAPIKey(t *testing.T) {
	db := apptest.NewDB()
	db.State.Orgs["org_keys"] = domain.Organization{ID: "org_keys", Name: "Keys"}
	now := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	app := apptest.NewApp(db, domain.Sandbox, &apptest.Clock{At: now}, noop.NewTracerProvider().Tracer("test"))
	c := application.CreateAPIKey{OrganizationID: "org_keys", Name: "shop", Scopes: []domain.Scope{domain.ScopeShipments, domain.ScopeInventory}}
	plain, err := app.CreateAPIKey.Handle(context.Background(), c)
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
	if _, err := app.CreateAPIKey.Handle(context.Background(), c); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown organization: %v, want ErrNotFound", err)
	}
	if len(db.State.Keys) != 1 {
		t.Fatalf("%d keys stored, want the first only", len(db.State.Keys))
	}
}
