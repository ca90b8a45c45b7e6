package access

import (
	"context"
	"database/sql"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// WebhookSecretRepository implements accessports.WebhookSecretRepository.
type WebhookSecretRepository struct{ run postgres.Runner }

var _ accessports.WebhookSecretRepository = (*WebhookSecretRepository)(nil)

const webhookSecretSQL postgres.SQLSelect = `SELECT secret FROM webhook_secrets WHERE organization_id = $1`

// WebhookSecret returns the organization's storefront webhook secret and
// whether it has one.
func (r *WebhookSecretRepository) WebhookSecret(ctx context.Context, organizationID string) (string, bool, error) {
	var secret string
	found := false
	err := r.run.Query(ctx, webhookSecretSQL, func(rows *sql.Rows) error {
		found = true
		return rows.Scan(&secret)
	}, organizationID)
	if err != nil {
		return "", false, postgres.DBErr(err)
	}
	return secret, found, nil
}
