package warehouse

import (
	"fmt"

	"github.com/acme3pl/fulfillment/domain/warehouse"
)

// firstReport is a warehouse's report's idempotency on its reference, the
// same for receipts and services: given what the repository's Create
// answered, a report stored now (created) goes on; one the warehouse has
// under the reference already is a retry when its content is the same (the
// stored one is the answer and nothing more is written), and otherwise
// warehouse.ErrReferenceConflict.
func firstReport[T interface{ SameContent(T) bool }](kind, reference, warehouseID string, fresh, stored T, created bool, err error) (retry bool, _ error) {
	switch {
	case err != nil:
		return false, fmt.Errorf("store %s %s: %w", kind, reference, err)
	case created:
		return false, nil
	case !fresh.SameContent(stored):
		return false, fmt.Errorf("%s %s of warehouse %s: %w", kind, reference, warehouseID, warehouse.ErrReferenceConflict)
	}
	return true, nil
}
