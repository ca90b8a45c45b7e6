package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// OrganizationRepository implements ports.OrganizationRepository.
type OrganizationRepository struct{ run runner }

var _ ports.OrganizationRepository = (*OrganizationRepository)(nil)

const organizationSQL sqlSelect = `SELECT id, name, coalesce(default_warehouse_id, ''), coalesce(rate_limit, ''),
	coalesce(rate_limit_burst, 0)
FROM organizations WHERE id = $1`

// Get returns an organization or domain.ErrNotFound.
func (r *OrganizationRepository) Get(ctx context.Context, id string) (domain.Organization, error) {
	var org domain.Organization
	found := false
	err := r.run.query(ctx, organizationSQL, func(rows *sql.Rows) error {
		found = true
		var rate string
		var burst int64
		if err := rows.Scan(&org.ID, &org.Name, &org.DefaultWarehouseID, &rate, &burst); err != nil {
			return err
		}
		if rate != "" {
			// A limit that does not parse (written by hand) is the
			// default here; the limiter's refresh reports it.
			org.RateLimit, _ = domain.ParseRateLimit(rate, int(burst))
		}
		return nil
	}, id)
	switch {
	case err != nil:
		return domain.Organization{}, dbErr(err)
	case !found:
		return domain.Organization{}, domain.ErrNotFound
	}
	return org, nil
}

// organizationsSQL is a page of the organizations by ID, with their own
// limits (a handful of rows: the 3PL's clients).
const organizationsSQL sqlSelect = `SELECT id, name, coalesce(default_warehouse_id, ''), coalesce(rate_limit, ''),
	coalesce(rate_limit_burst, 0)
FROM organizations ORDER BY id LIMIT $1 OFFSET $2`

// List returns a page of the organizations by ID and whether more follow.
func (r *OrganizationRepository) List(ctx context.Context, page ports.Page) ([]domain.Organization, bool, error) {
	var orgs []domain.Organization
	var bad error
	err := r.run.query(ctx, organizationsSQL, func(rows *sql.Rows) error {
		var org domain.Organization
		var rate string
		var burst int64
		if err := rows.Scan(&org.ID, &org.Name, &org.DefaultWarehouseID, &rate, &burst); err != nil {
			return err
		}
		if rate != "" {
			l, err := domain.ParseRateLimit(rate, int(burst))
			if err != nil && bad == nil {
				bad = fmt.Errorf("organization %s: %w", org.ID, err)
			}
			org.RateLimit = l
		}
		orgs = append(orgs, org)
		return nil
	}, page.Take+1, page.Skip)
	if err != nil {
		return nil, false, dbErr(err)
	}
	if bad != nil {
		return nil, false, bad
	}
	more := len(orgs) > page.Take
	if more {
		orgs = orgs[:page.Take]
	}
	return orgs, more, nil
}
