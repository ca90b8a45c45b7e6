package application

import (
	"context"
	"fmt"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// GetOrganization reads one organization with its own rate limit (the
// console's organization page).
type GetOrganization struct {
	OrganizationID string
}

// NewGetOrganizationHandler builds the handler: domain.ErrNotFound, naming
// it, when there is no such organization.
func NewGetOrganizationHandler(orgs ports.OrganizationRepository) HandlerFunc[GetOrganization, domain.Organization] {
	return func(ctx context.Context, q GetOrganization) (domain.Organization, error) {
		if !domain.ValidID(q.OrganizationID) {
			return domain.Organization{}, fmt.Errorf("organization %q: %w", q.OrganizationID, domain.ErrNotFound)
		}
		org, err := orgs.Get(ctx, q.OrganizationID)
		if err != nil {
			return domain.Organization{}, fmt.Errorf("organization %q: %w", q.OrganizationID, err)
		}
		return org, nil
	}
}
