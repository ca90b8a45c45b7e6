package application

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// ListOrganizations reads a page of the organizations, by ID, each with its
// own rate limit: the console's list of organizations and its picker.
type ListOrganizations struct {
	Page ports.Page
}

// OrganizationPage is a page of organizations.
type OrganizationPage = Page[domain.Organization]

// NewListOrganizationsHandler builds the handler.
func NewListOrganizationsHandler(orgs ports.OrganizationRepository) HandlerFunc[ListOrganizations, OrganizationPage] {
	return List(func(ctx context.Context, q ListOrganizations) ([]domain.Organization, bool, error) {
		if q.Page.Take <= 0 || q.Page.Skip < 0 {
			return nil, false, domain.Invalid("page", "take must be above 0 and skip at least 0")
		}
		return orgs.List(ctx, q.Page)
	})
}
