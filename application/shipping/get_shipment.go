package shipping

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// GetShipment asks for one shipment of the organization.
type GetShipment struct {
	OrganizationID string
	ShipmentID     string
}

// SpanAttributes implements Attributer.
func (q GetShipment) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("organization.id", q.OrganizationID),
		attribute.String("shipment.id", q.ShipmentID),
	}
}

// GetShipmentHandler answers GetShipment.
type GetShipmentHandler struct {
	shipments ports.ShipmentRepository
}

// NewGetShipmentHandler builds the handler.
func NewGetShipmentHandler(s ports.ShipmentRepository) *GetShipmentHandler {
	return &GetShipmentHandler{shipments: s}
}

// Handle returns the shipment, or domain.ErrNotFound when it does not exist
// or belongs to another organization.
func (h *GetShipmentHandler) Handle(ctx context.Context, q GetShipment) (*shipping.Shipment, error) {
	if !domain.ValidID(q.ShipmentID) {
		return nil, domain.ErrNotFound
	}
	return h.shipments.Get(ctx, q.OrganizationID, q.ShipmentID)
}
