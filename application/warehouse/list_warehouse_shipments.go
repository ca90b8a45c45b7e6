package warehouse

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// ListWarehouseShipments asks for a page of the shipments at the
// warehouse, of every organization it serves, in one status, oldest
// submission first: the warehouse's work list.
type ListWarehouseShipments struct {
	WarehouseID string
	Status      shipping.ShipmentStatus // one of shipping.WarehouseStatuses
	Page        ports.Page
}

// SpanAttributes implements Attributer.
func (q ListWarehouseShipments) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("warehouse.id", q.WarehouseID)}
}

// ShipmentPage is a page of the warehouse's shipments and whether
// more follow.
type ShipmentPage = application.Page[shippingports.WarehouseShipment]

// NewListWarehouseShipmentsHandler builds the handler: one page. A status
// the warehouse never sees (a draft's) is refused like an unknown one.
func NewListWarehouseShipmentsHandler(s shippingports.ShipmentRepository) application.HandlerFunc[ListWarehouseShipments, ShipmentPage] {
	return application.List(func(ctx context.Context, q ListWarehouseShipments) ([]shippingports.WarehouseShipment, bool, error) {
		if q.Status == "" {
			q.Status = shipping.ShipmentPending
		}
		if !q.Status.SeenByWarehouse() {
			return nil, false, domain.Invalid("status", "must be %s", warehouseStatusNames)
		}
		return s.ListAtWarehouse(ctx, q.WarehouseID, q.Status, q.Page)
	})
}

// warehouseStatusNames are the statuses the warehouse sees as the refusal
// names them: "pending, shipped or cancelled".
var warehouseStatusNames = func() string {
	names := make([]string, len(shipping.WarehouseStatuses))
	for i, st := range shipping.WarehouseStatuses {
		names[i] = string(st)
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}()
