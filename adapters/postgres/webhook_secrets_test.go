package postgres_test

import (
	"context"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

func TestWebhookSecretRepository(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	org, plain := intakeOrgID(t), intakeOrgID(t)
	intakeSeed(t, org, 0)
	intakeSeed(t, plain, 0)
	err := postgres.NewUnitOfWork(db).Do(context.Background(), func(ctx context.Context, r ports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, ports.Fixture{Secrets: []domain.WebhookSecret{{OrganizationID: org, Secret: "s3cret-0123456789abcdef"}}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	repos := postgres.NewRepositories(db)
	if s, ok, err := repos.WebhookSecrets.WebhookSecret(context.Background(), org); err != nil || !ok || s != "s3cret-0123456789abcdef" {
		t.Errorf("secret %q %v %v", s, ok, err)
	}
	if s, ok, err := repos.WebhookSecrets.WebhookSecret(context.Background(), plain); err != nil || ok || s != "" {
		t.Errorf("no secret: %q %v %v", s, ok, err)
	}
}
