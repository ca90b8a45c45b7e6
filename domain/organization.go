package domain

import (
	"strings"
)

// Organization is a client of the logistics company.
type Organization struct {
	ID                 string
	Name               string
	DefaultWarehouseID string // empty when none is set
	// RateLimit is the organization's own rate limit of the API; the zero
	// value is the service's default.
	RateLimit RateLimit
}

// Validate checks an organization before it is stored.
func (o Organization) Validate() error {
	if !ValidID(o.ID) {
		return Invalid("organization.id", "%q is not a valid ID", o.ID)
	}
	if strings.TrimSpace(o.Name) == "" {
		return Invalid("organization.name", "must not be empty")
	}
	if o.DefaultWarehouseID != "" && !ValidID(o.DefaultWarehouseID) {
		return Invalid("organization.defaultWarehouseId", "%q is not a valid ID", o.DefaultWarehouseID)
	}
	return nil
}
