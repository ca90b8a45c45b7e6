package access

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// ListWarehouses asks for a page of the organization's active warehouses.
type ListWarehouses struct {
	OrganizationID string
	Page           ports.Page
}

// SpanAttributes implements application.Attributer.
func (q ListWarehouses) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID)
}

// WarehousePage is a page of warehouses and whether more follow.
type WarehousePage = application.Page[domain.Warehouse]

// NewListWarehousesHandler builds the handler: one page, by name.
func NewListWarehousesHandler(w ports.WarehouseRepository) application.HandlerFunc[ListWarehouses, WarehousePage] {
	return application.List(func(ctx context.Context, q ListWarehouses) ([]domain.Warehouse, bool, error) {
		return w.ListActive(ctx, q.OrganizationID, q.Page)
	})
}
