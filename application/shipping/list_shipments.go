package shipping

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
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
	return application.OrganizationAttributes(q.OrganizationID)
}

// ShipmentPage is a page of shipments and whether more follow.
type ShipmentPage = application.Page[*shipping.Shipment]

// NewListShipmentsHandler builds the handler: one page, newest first.
// q.Status comes parsed (shipping.ParseShipmentStatus, by the HTTP adapter,
// which answers 400 for any other value).
func NewListShipmentsHandler(s shippingports.ShipmentRepository) application.HandlerFunc[ListShipments, ShipmentPage] {
	return application.List(func(ctx context.Context, q ListShipments) ([]*shipping.Shipment, bool, error) {
		return s.List(ctx, q.OrganizationID, shippingports.ShipmentFilter{Status: q.Status}, q.Page)
	})
}
