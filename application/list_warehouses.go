package application

import (
	"context"

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
	return []attribute.KeyValue{attribute.String("organization.id", q.OrganizationID)}
}

// WarehousePage is a page of warehouses and whether more follow.
type WarehousePage struct {
	Warehouses []domain.Warehouse
	More       bool
}

// ListWarehousesHandler answers ListWarehouses.
type ListWarehousesHandler struct {
	warehouses ports.WarehouseRepository
}

// NewListWarehousesHandler builds the handler.
func NewListWarehousesHandler(w ports.WarehouseRepository) *ListWarehousesHandler {
	return &ListWarehousesHandler{warehouses: w}
}

// Handle reads one page.
func (h *ListWarehousesHandler) Handle(ctx context.Context, q ListWarehouses) (WarehousePage, error) {
	ws, more, err := h.warehouses.ListActive(ctx, q.OrganizationID, q.Page)
	if err != nil {
		return WarehousePage{}, err
	}
	return WarehousePage{Warehouses: ws, More: more}, nil
}
