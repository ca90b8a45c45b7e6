package postgres

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID             string     `bun:"id,pk"`
	OrganizationID string     `bun:"organization_id"`
	Name           string     `bun:"name"`
	Environment    string     `bun:"environment"`
	Prefix         string     `bun:"prefix"`
	Hash           []byte     `bun:"hash"`
	Scopes         []string   `bun:"scopes,array"`
	CreatedAt      time.Time  `bun:"created_at"`
	RevokedAt      *time.Time `bun:"revoked_at"`
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

// APIKeyRepository implements ports.APIKeyRepository.
type APIKeyRepository struct{ db bun.IDB }

var _ ports.APIKeyRepository = (*APIKeyRepository)(nil)

// Create stores a new key (its hash, never its secret).
func (r *APIKeyRepository) Create(ctx context.Context, k domain.APIKey) error {
	row := apiKeyToRow(k)
	_, err := r.db.NewInsert().Model(&row).Exec(ctx)
	return dbErr(err)
}

// FindByHash returns the key with this hash, revoked or not.
func (r *APIKeyRepository) FindByHash(ctx context.Context, hash []byte) (domain.APIKey, error) {
	var row apiKeyRow
	if err := r.db.NewSelect().Model(&row).Where("hash = ?", hash).Scan(ctx); err != nil {
		return domain.APIKey{}, dbErr(err)
	}
	return row.toDomain(), nil
}

// Revoke marks a key revoked; revoking it again keeps the first time.
func (r *APIKeyRepository) Revoke(ctx context.Context, id string) error {
	res, err := r.db.NewUpdate().Model((*apiKeyRow)(nil)).
		Set("revoked_at = coalesce(revoked_at, now())").Where("id = ?", id).Exec(ctx)
	if err != nil {
		return dbErr(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.ErrNotFound
	}
	return nil
}

// ListByOrganization lists an organization's keys, oldest first.
func (r *APIKeyRepository) ListByOrganization(ctx context.Context, organizationID string) ([]domain.APIKey, error) {
	var rows []apiKeyRow
	err := r.db.NewSelect().Model(&rows).Where("organization_id = ?", organizationID).
		OrderExpr("created_at, id").Scan(ctx)
	if err != nil {
		return nil, dbErr(err)
	}
	out := make([]domain.APIKey, len(rows))
	for i, row := range rows {
		out[i] = row.toDomain()
	}
	return out, nil
}
