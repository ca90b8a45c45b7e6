package shipping

import (
	"strings"

	"github.com/acme3pl/fulfillment/domain"
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

// ErrorKind implements domain.KindedError.
func (e *UnknownItemsError) ErrorKind() domain.Kind { return domain.KindUnknownItems }
