package domain

import (
	"regexp"
	"strings"
)

// Warehouse is a physical location run by the operator and made available to
// organizations. The service never changes a warehouse through its API, so it
// is a validated value rather than an aggregate with behaviour.
type Warehouse struct {
	ID          string
	Name        string
	Description *string
	Active      bool
	Address     Address
	Contact     Contact
	Tags        []string
}

// Address of a warehouse.
type Address struct {
	Name, Line1, Line2, District, City, State, CountryCode, PostalCode string
}

// Contact of a warehouse.
type Contact struct {
	Name, Email, PhoneNumber, Fax string
}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// Validate checks the invariants of a warehouse before it is stored.
func (w Warehouse) Validate() error {
	switch {
	case !ValidID(w.ID):
		return Invalid("warehouse.id", "%q is not a valid ID", w.ID)
	case strings.TrimSpace(w.Name) == "":
		return Invalid("warehouse.name", "must not be empty")
	case !countryCode.MatchString(w.Address.CountryCode):
		return Invalid("warehouse.address.countryCode", "%q is not an ISO 3166-1 alpha-2 code", w.Address.CountryCode)
	}
	for _, t := range w.Tags {
		if strings.TrimSpace(t) == "" {
			return Invalid("warehouse.tags", "must not hold empty tags")
		}
	}
	return nil
}

// WarehouseRef is the short form of a warehouse carried by shipments and
// stock levels.
type WarehouseRef struct {
	ID   string
	Name string
}

// ErrInvalidWarehouse: a shipment or a warehouse's report names a warehouse that is not an active
// warehouse available to its organization. It is a refusal of the request
// (the caller chose the warehouse), not a missing record of the URL.
var ErrInvalidWarehouse = NewError(KindInvalidWarehouse, "invalid warehouse")
