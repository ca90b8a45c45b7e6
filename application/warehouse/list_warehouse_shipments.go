package warehouse

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// ListWarehouseShipments asks for a page of the shipments at the
// warehouse, of every organization it serves, in one status, oldest
// submission first: the warehouse's work list.
type ListWarehouseShipments struct {
	WarehouseID string
	Status      shipping.ShipmentStatus // pending, shipped or cancelled
	Page        ports.Page
}

// SpanAttributes implements Attributer.
func (q ListWarehouseShipments) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("warehouse.id", q.WarehouseID)}
}

// ShipmentPage is a page of the warehouse's shipments and whether
// more follow.
type ShipmentPage = application.Page[ports.WarehouseShipment]

// NewListWarehouseShipmentsHandler builds the handler: one page. A draft
// never reaches the warehouse, so its status is refused like an unknown
// one.
func NewListWarehouseShipmentsHandler(s ports.ShipmentRepository) application.HandlerFunc[ListWarehouseShipments, ShipmentPage] {
	return application.List(func(ctx context.Context, q ListWarehouseShipments) ([]ports.WarehouseShipment, bool, error) {
		if q.Status == "" {
			q.Status = shipping.ShipmentPending
		}
		if q.Status == shipping.ShipmentDraft {
			return nil, false, domain.Invalid("status", "must be pending, shipped or cancelled")
		}
		return s.ListAtWarehouse(ctx, q.WarehouseID, q.Status, q.Page)
	})
}
