package domain

import (
	"errors"
	"strings"
)

// ErrInvalidWarehouse: a shipment names a warehouse that is not an active
// warehouse available to its organization. It is a refusal of the request
// (the caller chose the warehouse), not a missing record of the URL.
var ErrInvalidWarehouse = errors.New("invalid warehouse")

// UnknownItemsError lists the product or carton IDs of a shipment draft that
// are not records of the organization, de-duplicated, in the order they
// were asked for. Kind tells products from cartons.
type UnknownItemsError struct {
	Kind ItemKind
	IDs  []string
}

func (e *UnknownItemsError) Error() string {
	return "unknown " + string(e.Kind) + "s: " + strings.Join(e.IDs, ", ")
}
