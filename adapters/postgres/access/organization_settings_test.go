package access_test

import (
	"context"
	"errors"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// The settings an organization has of its own: its rate limit and its
// storefront webhook secret.

// An organization's own rate limit: from a fixture (a second load changes
// nothing, and never an operator's limit), set by the operator, listed for
// the replicas; an unknown organization is not found.
func TestOrganizationRateLimits(t *testing.T) {
	ctx := context.Background()
	limit := func(rate string, burst int) domain.RateLimit {
		l, err := domain.ParseRateLimit(rate, burst)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	load(t, fixtureports.Fixture{Organizations: []domain.Organization{
		{ID: "org_rl_fixture", Name: "Fixture limit", RateLimit: limit("50/s", 0)},
		{ID: "org_rl_default", Name: "Default limit"},
	}})
	limits := pgaccess.NewOrganizationRateLimits(pgtest.Open(t, testDSN))
	got, err := limits.RateLimits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := got["org_rl_fixture"]; !ok || l != limit("50/s", 100) {
		t.Errorf("the fixture's limit: %v (%v), want 50/s burst 100", l, ok)
	}
	if _, ok := got["org_rl_default"]; ok {
		t.Error("an organization without a limit of its own is listed")
	}

	if err := limits.SetRateLimit(ctx, "org_rl_default", limit("600/m", 5)); err != nil {
		t.Fatal(err)
	}
	if err := limits.SetRateLimit(ctx, "org_rl_fixture", limit("10/s", 1)); err != nil {
		t.Fatal(err)
	}
	if err := limits.SetRateLimit(ctx, "org_rl_nobody", limit("10/s", 1)); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown organization: %v, want domain.ErrNotFound", err)
	}
	// Seeding again keeps the operator's limit.
	load(t, fixtureports.Fixture{Organizations: []domain.Organization{{ID: "org_rl_fixture", Name: "Fixture limit", RateLimit: limit("50/s", 0)}}})
	got, err = limits.RateLimits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got["org_rl_default"] != limit("600/m", 5) || got["org_rl_fixture"] != limit("10/s", 1) {
		t.Errorf("after orgs limit and a second seed: %v", got)
	}

	// Back to the default: the limit of its own is gone (twice is the
	// same); an unknown organization is not found.
	for range 2 {
		if err := limits.ClearRateLimit(ctx, "org_rl_default"); err != nil {
			t.Fatal(err)
		}
	}
	if err := limits.ClearRateLimit(ctx, "org_rl_nobody"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("clearing an unknown organization's limit: %v, want domain.ErrNotFound", err)
	}
	got, err = limits.RateLimits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["org_rl_default"]; ok || got["org_rl_fixture"] != limit("10/s", 1) {
		t.Errorf("after clearing org_rl_default's limit: %v, want only org_rl_fixture's", got)
	}
}

// An organization's storefront webhook secret, from a fixture; an
// organization without one has none.
func TestWebhookSecretRepository(t *testing.T) {
	org, plain := orgID(t), orgID(t)
	seedOrg(t, org)
	seedOrg(t, plain)
	load(t, fixtureports.Fixture{Secrets: []domain.WebhookSecret{{OrganizationID: org, Secret: "s3cret-0123456789abcdef"}}})
	repos := postgres.NewRepositories(pgtest.Open(t, testDSN), pgaccess.Repositories)
	if s, ok, err := repos.WebhookSecrets.WebhookSecret(context.Background(), org); err != nil || !ok || s != "s3cret-0123456789abcdef" {
		t.Errorf("secret %q %v %v", s, ok, err)
	}
	if s, ok, err := repos.WebhookSecrets.WebhookSecret(context.Background(), plain); err != nil || ok || s != "" {
		t.Errorf("no secret: %q %v %v", s, ok, err)
	}
}
