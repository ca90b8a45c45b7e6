package domain

import "strings"

// Organization is a client of the logistics company.
type Organization struct {
	ID                 string
	Name               string
	DefaultWarehouseID string // empty when none is set
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
