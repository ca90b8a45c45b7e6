package ports

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"
)

// OrganizationRateLimits keeps the organizations' own rate limits.
type OrganizationRateLimits interface {
	// SetRateLimit sets an organization's own limit; domain.ErrNotFound
	// when the organization does not exist.
	SetRateLimit(ctx context.Context, organizationID string, limit domain.RateLimit) error
	// RateLimits returns every organization's own limit, by organization
	// ID; organizations without one are not in it.
	RateLimits(ctx context.Context) (map[string]domain.RateLimit, error)
}
