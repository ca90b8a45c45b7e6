package postgres

import (
	"context"
	"database/sql"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// OrganizationRepository implements ports.OrganizationRepository.
type OrganizationRepository struct{ run runner }

var _ ports.OrganizationRepository = (*OrganizationRepository)(nil)

const organizationSQL sqlSelect = `SELECT id, name, coalesce(default_warehouse_id, '') FROM organizations WHERE id = $1`

// Get returns an organization or domain.ErrNotFound.
func (r *OrganizationRepository) Get(ctx context.Context, id string) (domain.Organization, error) {
	var org domain.Organization
	found := false
	err := r.run.query(ctx, organizationSQL, func(rows *sql.Rows) error {
		found = true
		return rows.Scan(&org.ID, &org.Name, &org.DefaultWarehouseID)
	}, id)
	switch {
	case err != nil:
		return domain.Organization{}, dbErr(err)
	case !found:
		return domain.Organization{}, domain.ErrNotFound
	}
	return org, nil
}
