package application

import (
	"context"
	"errors"
	"fmt"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// ActiveWarehouse returns the active warehouse of this ID that the
// organization may use, or domain.ErrInvalidWarehouse. An ID of a shape no
// warehouse has is refused without asking the database.
func ActiveWarehouse(ctx context.Context, warehouses ports.WarehouseRepository, org, id string) (domain.Warehouse, error) {
	if !domain.ValidID(id) {
		return domain.Warehouse{}, fmt.Errorf("warehouse %q: %w", id, domain.ErrInvalidWarehouse)
	}
	wh, err := warehouses.ActiveForOrganization(ctx, org, id)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Warehouse{}, fmt.Errorf("warehouse %s: %w", id, domain.ErrInvalidWarehouse)
	}
	if err != nil {
		return domain.Warehouse{}, fmt.Errorf("find warehouse %s: %w", id, err)
	}
	return wh, nil
}
