package access

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// OrganizationRateLimits keeps the organizations' own rate limits.
type OrganizationRateLimits interface {
	// SetRateLimit sets an organization's own limit; domain.ErrNotFound
	// when the organization does not exist.
	SetRateLimit(ctx context.Context, organizationID string, limit domain.RateLimit) error
	// ClearRateLimit removes an organization's own limit: it has the
	// default again. domain.ErrNotFound when the organization does not
	// exist; an organization without a limit of its own is left as it is.
	ClearRateLimit(ctx context.Context, organizationID string) error
	// RateLimits returns every organization's own limit, by organization
	// ID; organizations without one are not in it.
	RateLimits(ctx context.Context) (map[string]domain.RateLimit, error)
}
