package shipping

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// CreateShipment asks for a new Pick & Pack or SPD draft. Lines name
// products (Pick & Pack) or cartons (SPD) by ID; their SKUs are looked up.
type CreateShipment struct {
	OrganizationID string
	Kind           shipping.ShipmentKind
	WarehouseID    string
	Address        shipping.Address
	Notes          string
	Lines          []shipping.ShipmentLine
}

// SpanAttributes implements Attributer.
func (c CreateShipment) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID, attribute.String("shipment.kind", string(c.Kind)))
}

// CreateShipmentHandler creates drafts. In the sandbox every shipment is a
// test shipment; in production none is.
type CreateShipmentHandler struct {
	uow   ports.UnitOfWork[shippingports.Repositories]
	clock ports.Clock
	ids   ports.IDGenerator
	test  bool
}

// NewCreateShipmentHandler builds the handler for the deployment's
// environment.
func NewCreateShipmentHandler(uow ports.UnitOfWork[shippingports.Repositories], clock ports.Clock, ids ports.IDGenerator, env domain.Environment) *CreateShipmentHandler {
	return &CreateShipmentHandler{uow: uow, clock: clock, ids: ids, test: env != domain.Production}
}

// Handle validates the draft before any transaction (400s: the warehouse is
// required, then the shipping address, the notes and the lines, as
// shipping.NewShipment checks them), then, in one transaction, checks the
// warehouse (422 invalid_warehouse) and the items (422 unknown_items)
// against the organization's records and stores the draft, with its
// shipment.created event.
func (h *CreateShipmentHandler) Handle(ctx context.Context, c CreateShipment) (*shipping.Shipment, error) {
	s, err := shipping.NewShipment(shipping.NewShipmentParams{
		ID: h.ids.NewID("shp"), OrganizationID: c.OrganizationID, Kind: c.Kind,
		Warehouse: domain.WarehouseRef{ID: c.WarehouseID}, Address: c.Address, Notes: c.Notes, Lines: c.Lines,
		Test: h.test, Now: h.clock.Now(),
	})
	if err != nil {
		return nil, err
	}
	err = h.uow.Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		wh, err := application.ActiveWarehouse(ctx, r.Warehouses, c.OrganizationID, c.WarehouseID)
		if err != nil {
			return err
		}
		lines := s.Lines()
		ids := make([]string, len(lines))
		for i, l := range lines {
			ids[i] = l.ItemID
		}
		items, err := r.Inventory.FindByIDs(ctx, c.OrganizationID, s.Kind().Items(), ids)
		if err != nil {
			return fmt.Errorf("find %ss: %w", s.Kind().Items(), err)
		}
		if err := s.Resolve(domain.WarehouseRef{ID: wh.ID, Name: wh.Name}, items); err != nil {
			return err
		}
		if err := r.Shipments.Create(ctx, s); err != nil {
			return fmt.Errorf("store shipment: %w", err)
		}
		return r.Events.Record(ctx, shippingports.ShipmentEvent(eventsports.EventShipmentCreated, s, s.CreatedAt()))
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}
