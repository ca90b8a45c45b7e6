package application

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// ListWarehouses asks for a page of the organization's active warehouses.
type ListWarehouses struct {
	OrganizationID string
	Page           ports.Page
}

// SpanAttributes implements Attributer.
func (q ListWarehouses) SpanAttributes() []attribute.KeyValue {
	return OrganizationAttributes(q.OrganizationID)
}

// WarehousePage is a page of warehouses and whether more follow.
type WarehousePage = Page[domain.Warehouse]

// NewListWarehousesHandler builds the handler: one page, by name.
func NewListWarehousesHandler(w ports.WarehouseRepository) HandlerFunc[ListWarehouses, WarehousePage] {
	return List(func(ctx context.Context, q ListWarehouses) ([]domain.Warehouse, bool, error) {
		return w.ListActive(ctx, q.OrganizationID, q.Page)
	})
}

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
