package application_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// keyStore is a fake of the repositories API keys need: organizations and
// keys, committed by its unit of work only when fn succeeds.
type keyStore struct {
	orgs map[string]bool
	keys []domain.APIKey
}

func (s *keyStore) Do(ctx context.Context, fn func(ctx context.Context, r ports.Repositories) error) error {
	tx := &keyStore{orgs: s.orgs, keys: append([]domain.APIKey(nil), s.keys...)}
	if err := fn(ctx, ports.Repositories{Organizations: keyOrgs{tx}, APIKeys: keyRepo{s: tx}}); err != nil {
		return err
	}
	s.keys = tx.keys
	return nil
}

type keyOrgs struct{ s *keyStore }

func (r keyOrgs) Get(_ context.Context, id string) (domain.Organization, error) {
	if !r.s.orgs[id] {
		return domain.Organization{}, domain.ErrNotFound
	}
	return domain.Organization{ID: id}, nil
}

type keyRepo struct {
	ports.APIKeyRepository // what CreateAPIKey does not use panics
	s                      *keyStore
}

func (r keyRepo) Create(_ context.Context, k domain.APIKey) error {
	r.s.keys = append(r.s.keys, k)
	return nil
}

// keyGenerator makes the same key every time.
type keyGenerator struct{}

func (keyGenerator) GenerateAPIKey(env domain.Environment) (string, []byte, string, error) {
	return "fk_test_" + string(env) + "-secret", []byte("hash-of-the-key"), "fk_test_abcd", nil
}

func TestCreateAPIKey(t *testing.T) {
	store := &keyStore{orgs: map[string]bool{"org_keys": true}}
	now := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	app := application.New(application.Deps{
		UnitOfWork: store, Keys: keyGenerator{}, Clock: &shipClock{now: now}, IDs: &shipIDs{},
		Tracer: noop.NewTracerProvider().Tracer("test"), Log: slog.New(slog.DiscardHandler), Environment: domain.Sandbox,
	})
	c := application.CreateAPIKey{OrganizationID: "org_keys", Name: "shop", Scopes: []domain.Scope{domain.ScopeShipments, domain.ScopeInventory}}
	plain, err := app.Commands.CreateAPIKey.Handle(context.Background(), c)
	if err != nil || plain != "fk_test_sandbox-secret" {
		t.Fatalf("key %q, %v", plain, err)
	}
	want := []domain.APIKey{{
		ID: "key_1", OrganizationID: "org_keys", Name: "shop", Environment: domain.Sandbox, Prefix: "fk_test_abcd",
		Hash: []byte("hash-of-the-key"), Scopes: c.Scopes, CreatedAt: now,
	}}
	if !reflect.DeepEqual(store.keys, want) || bytes.Contains(store.keys[0].Hash, []byte(plain)) {
		t.Fatalf("stored %+v, want %+v (the hash, never the key)", store.keys, want)
	}

	c.OrganizationID = "org_missing"
	if _, err := app.Commands.CreateAPIKey.Handle(context.Background(), c); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown organization: %v, want ErrNotFound", err)
	}
	if len(store.keys) != 1 {
		t.Fatalf("%d keys stored, want the first only", len(store.keys))
	}
}
