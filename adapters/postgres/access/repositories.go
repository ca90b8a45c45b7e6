package access

import (
	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Repositories binds the access context's repositories to h: a unit of
// work's transaction (postgres.UnitOfWorkOf) or the pool. Its own are the
// API keys, the webhook secrets and the rate limits; the rest are the
// kit's.
func Repositories(h postgres.Handle) accessports.Repositories {
	return accessports.Repositories{
		Organizations:  postgres.Organizations(h),
		Warehouses:     postgres.Warehouses(h),
		APIKeys:        &APIKeyRepository{run: h.Runner()},
		WebhookSecrets: &WebhookSecretRepository{run: h.Runner()},
		RateLimits:     &OrganizationRateLimits{run: h.Runner()},
		Trail:          postgres.Trail(h),
	}
}

// Statements are the package's statements by name, for the one golden
// file of every statement (adapters/postgres/testdata/statements.golden).
func Statements() map[string]postgres.Statement {
	return map[string]postgres.Statement{
		"createAPIKeySQL":     createAPIKeySQL,
		"findAPIKeySQL":       findAPIKeySQL,
		"revokeAPIKeySQL":     revokeAPIKeySQL,
		"organizationKeysSQL": organizationKeysSQL,
		"webhookSecretSQL":    webhookSecretSQL,
		"setRateLimitSQL":     setRateLimitSQL,
		"clearRateLimitSQL":   clearRateLimitSQL,
		"rateLimitsSQL":       rateLimitsSQL,
	}
}

// The API key's row, for the fixture store (adapters/postgres/fixture),
// which writes a fixture's keys as Create does.

// APIKeyRow is an API key's row.
type APIKeyRow = apiKeyRow

// APIKeyToRow is k's row.
func APIKeyToRow(k domain.APIKey) APIKeyRow { return apiKeyToRow(k) }

// CreateAPIKeySQL inserts an API key.
const CreateAPIKeySQL = createAPIKeySQL
