package access

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// OrganizationRateLimits keeps the organizations' own rate limits in their
// rows (migration 0016): the rate as written and its burst.
type OrganizationRateLimits struct{ run postgres.Runner }

var _ accessports.OrganizationRateLimits = (*OrganizationRateLimits)(nil)

// NewOrganizationRateLimits returns the organizations' limits on db.
func NewOrganizationRateLimits(db bun.IDB) *OrganizationRateLimits {
	return &OrganizationRateLimits{run: postgres.NewRunner(db)}
}

const (
	setRateLimitSQL   postgres.SQLUpdate = `UPDATE organizations SET rate_limit = $2, rate_limit_burst = $3 WHERE id = $1`
	clearRateLimitSQL postgres.SQLUpdate = `UPDATE organizations SET rate_limit = NULL, rate_limit_burst = NULL WHERE id = $1`
	rateLimitsSQL     postgres.SQLSelect = `SELECT id, rate_limit, coalesce(rate_limit_burst, 0) FROM organizations WHERE rate_limit IS NOT NULL`
)

// SetRateLimit sets an organization's own limit, or domain.ErrNotFound.
func (r *OrganizationRateLimits) SetRateLimit(ctx context.Context, organizationID string, limit domain.RateLimit) error {
	n, err := r.run.Exec(ctx, setRateLimitSQL, organizationID, limit.Rate(), int64(limit.Burst()))
	if err != nil {
		return postgres.DBErr(err)
	}
	if n == 0 {
		return domain.ErrNotFound
	}
	return nil
}

// ClearRateLimit removes an organization's own limit, or
// domain.ErrNotFound.
func (r *OrganizationRateLimits) ClearRateLimit(ctx context.Context, organizationID string) error {
	n, err := r.run.Exec(ctx, clearRateLimitSQL, organizationID)
	if err != nil {
		return postgres.DBErr(err)
	}
	if n == 0 {
		return domain.ErrNotFound
	}
	return nil
}

// RateLimits returns every organization's own limit. A row whose limit
// does not parse (written by hand) is reported, not skipped: the caller
// keeps the limits it had.
func (r *OrganizationRateLimits) RateLimits(ctx context.Context) (map[string]domain.RateLimit, error) {
	limits := map[string]domain.RateLimit{}
	var bad error
	err := r.run.Query(ctx, rateLimitsSQL, func(rows *sql.Rows) error {
		var id, rate string
		var burst int64
		if err := rows.Scan(&id, &rate, &burst); err != nil {
			return err
		}
		l, err := domain.ParseRateLimit(rate, int(burst))
		if err != nil && bad == nil {
			bad = fmt.Errorf("organization %s: %w", id, err)
		}
		limits[id] = l
		return nil
	})
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	if bad != nil {
		return nil, bad
	}
	return limits, nil
}
