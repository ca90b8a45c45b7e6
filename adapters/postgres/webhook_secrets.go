package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/ports"
)

// WebhookSecretRepository implements ports.WebhookSecretRepository.
type WebhookSecretRepository struct{ db bun.IDB }

var _ ports.WebhookSecretRepository = (*WebhookSecretRepository)(nil)

// WebhookSecret returns the organization's storefront webhook secret and
// whether it has one.
func (r *WebhookSecretRepository) WebhookSecret(ctx context.Context, organizationID string) (string, bool, error) {
	var secret string
	err := r.db.NewSelect().Table("webhook_secrets").Column("secret").
		Where("organization_id = ?", organizationID).Scan(ctx, &secret)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, dbErr(err)
	}
	return secret, true, nil
}
