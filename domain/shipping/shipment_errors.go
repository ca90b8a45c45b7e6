package shipping

import (
	"strings"
)

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
