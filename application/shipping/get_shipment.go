package shipping

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/shipping"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// ShipmentRef names one shipment of an organization: what GetShipment,
// SubmitShipment and CancelShipment ask about.
type ShipmentRef struct {
	OrganizationID string
	ShipmentID     string
}

// SpanAttributes implements Attributer.
func (r ShipmentRef) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(r.OrganizationID, attribute.String("shipment.id", r.ShipmentID))
}

// GetShipment asks for one shipment of the organization.
type GetShipment = ShipmentRef

// NewGetShipmentHandler builds the handler: the shipment, or
// domain.ErrNotFound when it does not exist or belongs to another
// organization.
func NewGetShipmentHandler(s shippingports.ShipmentRepository) application.HandlerFunc[GetShipment, *shipping.Shipment] {
	return func(ctx context.Context, q GetShipment) (*shipping.Shipment, error) {
		return application.FindByID(ctx, s.Get, q.OrganizationID, q.ShipmentID)
	}
}
