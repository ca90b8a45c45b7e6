package access

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

type apiKeyRow struct {
	ID             string
	OrganizationID string
	Name           string
	Environment    string
	Prefix         string
	Hash           []byte
	Scopes         []string
	CreatedAt      time.Time
	RevokedAt      *time.Time
}

func apiKeyToRow(k domain.APIKey) apiKeyRow {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	return apiKeyRow{
		ID: k.ID, OrganizationID: k.OrganizationID, Name: k.Name, Environment: string(k.Environment),
		Prefix: k.Prefix, Hash: k.Hash, Scopes: scopes, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt,
	}
}

func (r apiKeyRow) toDomain() domain.APIKey {
	scopes := make([]domain.Scope, len(r.Scopes))
	for i, s := range r.Scopes {
		scopes[i] = domain.Scope(s)
	}
	return domain.APIKey{
		ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, Environment: domain.Environment(r.Environment),
		Prefix: r.Prefix, Hash: r.Hash, Scopes: scopes, CreatedAt: r.CreatedAt.UTC(), RevokedAt: r.RevokedAt,
	}
}

// APIKeyRepository implements accessports.APIKeyRepository.
type APIKeyRepository struct{ run postgres.Runner }

var _ accessports.APIKeyRepository = (*APIKeyRepository)(nil)

const (
	// apiKeyColumns are what the reads return, in scanAPIKeys' order.
	apiKeyColumns = `id, organization_id, name, environment, prefix, hash, scopes, created_at, revoked_at`

	createAPIKeySQL postgres.SQLInsert = `INSERT INTO api_keys (` + apiKeyColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
	findAPIKeySQL   postgres.SQLSelect = `SELECT ` + apiKeyColumns + ` FROM api_keys WHERE hash = $1`
	// Revoking a revoked key keeps the first time.
	revokeAPIKeySQL postgres.SQLUpdate = `WITH old AS (SELECT ` + apiKeyColumns + ` FROM api_keys WHERE id = $1 FOR UPDATE) ` +
		`UPDATE api_keys k SET revoked_at = coalesce(k.revoked_at, now()) FROM old WHERE k.id = old.id ` +
		`RETURNING old.id, old.organization_id, old.name, old.environment, old.prefix, old.hash, old.scopes, old.created_at, old.revoked_at`
	organizationKeysSQL postgres.SQLSelect = `SELECT ` + apiKeyColumns + ` FROM api_keys WHERE organization_id = $1 ORDER BY created_at, id`
)

// Create stores a new key (its hash, never its secret).
func (r *APIKeyRepository) Create(ctx context.Context, k domain.APIKey) error {
	row := apiKeyToRow(k)
	_, err := r.run.Exec(ctx, createAPIKeySQL, row.ID, row.OrganizationID, row.Name, row.Environment, row.Prefix,
		row.Hash, postgres.Array(row.Scopes), row.CreatedAt, row.RevokedAt)
	return postgres.DBErr(err)
}

// FindByHash returns the key with this hash, revoked or not.
func (r *APIKeyRepository) FindByHash(ctx context.Context, hash []byte) (domain.APIKey, error) {
	rows, err := r.read(ctx, findAPIKeySQL, hash)
	if err != nil {
		return domain.APIKey{}, err
	}
	if len(rows) == 0 {
		return domain.APIKey{}, domain.ErrNotFound
	}
	return rows[0].toDomain(), nil
}

// Revoke marks a key revoked; revoking it again keeps the first time. It
// returns the key as it was before.
func (r *APIKeyRepository) Revoke(ctx context.Context, id string) (domain.APIKey, error) {
	rows, err := r.read(ctx, revokeAPIKeySQL, id)
	if err != nil {
		return domain.APIKey{}, err
	}
	if len(rows) == 0 {
		return domain.APIKey{}, domain.ErrNotFound
	}
	return rows[0].toDomain(), nil
}

// ListByOrganization lists an organization's keys, oldest first.
func (r *APIKeyRepository) ListByOrganization(ctx context.Context, organizationID string) ([]domain.APIKey, error) {
	rows, err := r.read(ctx, organizationKeysSQL, organizationID)
	if err != nil {
		return nil, err
	}
	out := make([]domain.APIKey, len(rows))
	for i, row := range rows {
		out[i] = row.toDomain()
	}
	return out, nil
}

// read runs q, a statement of apiKeyColumns.
func (r *APIKeyRepository) read(ctx context.Context, q postgres.Statement, args ...any) ([]apiKeyRow, error) {
	var rows []apiKeyRow
	err := r.run.Query(ctx, q, func(sr *sql.Rows) error {
		var k apiKeyRow
		err := sr.Scan(&k.ID, &k.OrganizationID, &k.Name, &k.Environment, &k.Prefix, &k.Hash,
			pgdialect.Array(&k.Scopes), &k.CreatedAt, &k.RevokedAt)
		rows = append(rows, k)
		return err
	}, args...)
	return rows, postgres.DBErr(err)
}
