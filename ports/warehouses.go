package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// OrganizationRepository reads organizations.
type OrganizationRepository interface {
	// Get returns domain.ErrNotFound when the organization does not exist.
	Get(ctx context.Context, id string) (domain.Organization, error)
	// List returns a page of the organizations, ordered by ID, each with
	// its own rate limit (zero: the default), and whether more follow (the
	// console's list of organizations).
	List(ctx context.Context, page Page) (orgs []domain.Organization, more bool, err error)
}

// WarehouseRepository reads warehouses as organizations see them.
type WarehouseRepository interface {
	// ListActive returns the page of active warehouses available to the
	// organization, ordered by name then ID, and whether more follow.
	ListActive(ctx context.Context, organizationID string, page Page) (ws []domain.Warehouse, more bool, err error)
	// ActiveForOrganization returns one active warehouse available to the
	// organization, or domain.ErrNotFound.
	ActiveForOrganization(ctx context.Context, organizationID, warehouseID string) (domain.Warehouse, error)
	// IsActive tells whether the warehouse exists and is active: a
	// warehouse's token is trusted only then.
	IsActive(ctx context.Context, warehouseID string) (bool, error)
}
