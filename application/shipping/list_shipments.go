package shipping

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// ListShipments asks for a page of the organization's shipments, newest
// first, optionally of one status ("" for all).
type ListShipments struct {
	OrganizationID string
	Status         shipping.ShipmentStatus
	Page           ports.Page
}

// SpanAttributes implements Attributer.
func (q ListShipments) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("organization.id", q.OrganizationID)}
}

// ShipmentPage is a page of shipments and whether more follow.
type ShipmentPage struct {
	Shipments []*shipping.Shipment
	More      bool
}

// ListShipmentsHandler answers ListShipments.
type ListShipmentsHandler struct {
	shipments ports.ShipmentRepository
}

// NewListShipmentsHandler builds the handler.
func NewListShipmentsHandler(s ports.ShipmentRepository) *ListShipmentsHandler {
	return &ListShipmentsHandler{shipments: s}
}

// Handle reads one page. q.Status comes parsed (shipping.ParseShipmentStatus,
// by the HTTP adapter, which answers 400 for any other value).
func (h *ListShipmentsHandler) Handle(ctx context.Context, q ListShipments) (ShipmentPage, error) {
	ss, more, err := h.shipments.List(ctx, q.OrganizationID, ports.ShipmentFilter{Status: q.Status}, q.Page)
	if err != nil {
		return ShipmentPage{}, err
	}
	return ShipmentPage{Shipments: ss, More: more}, nil
}
