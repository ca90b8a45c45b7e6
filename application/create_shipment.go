package application

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// CreateShipment asks for a new Pick & Pack or SPD draft. Lines name
// products (Pick & Pack) or cartons (SPD) by ID; their SKUs are looked up.
type CreateShipment struct {
	OrganizationID string
	Kind           domain.ShipmentKind
	WarehouseID    string
	Address        domain.ShippingAddress
	Notes          string
	Lines          []domain.ShipmentLine
}

// SpanAttributes implements Attributer.
func (c CreateShipment) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("organization.id", c.OrganizationID),
		attribute.String("shipment.kind", string(c.Kind)),
	}
}

// CreateShipmentHandler creates drafts. In the sandbox every shipment is a
// test shipment; in production none is.
type CreateShipmentHandler struct {
	uow   ports.UnitOfWork
	clock ports.Clock
	ids   ports.IDGenerator
	test  bool
}

// NewCreateShipmentHandler builds the handler for the deployment's
// environment.
func NewCreateShipmentHandler(uow ports.UnitOfWork, clock ports.Clock, ids ports.IDGenerator, env domain.Environment) *CreateShipmentHandler {
	return &CreateShipmentHandler{uow: uow, clock: clock, ids: ids, test: env != domain.Production}
}

// Handle validates the draft before any transaction (400s: the warehouse is
// required, then the shipping address, the notes and the lines, as
// domain.NewShipment checks them), then, in one transaction, checks the
// warehouse (422 invalid_warehouse) and the items (422 unknown_items)
// against the organization's records and stores the draft, with its
// shipment.created event.
func (h *CreateShipmentHandler) Handle(ctx context.Context, c CreateShipment) (*domain.Shipment, error) {
	s, err := domain.NewShipment(domain.NewShipmentParams{
		ID: h.ids.NewID("shp"), OrganizationID: c.OrganizationID, Kind: c.Kind,
		Warehouse: domain.WarehouseRef{ID: c.WarehouseID}, Address: c.Address, Notes: c.Notes, Lines: c.Lines,
		Test: h.test, Now: h.clock.Now(),
	})
	if err != nil {
		return nil, err
	}
	err = h.uow.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		wh, err := activeWarehouse(ctx, r.Warehouses, c.OrganizationID, c.WarehouseID)
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
		return r.Events.Record(ctx, ports.ShipmentEvent(ports.EventShipmentCreated, s, s.CreatedAt()))
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// activeWarehouse returns the active warehouse of this ID that the
// organization may use, or domain.ErrInvalidWarehouse. An ID of a shape no
// warehouse has is refused without asking the database.
func activeWarehouse(ctx context.Context, warehouses ports.WarehouseRepository, org, id string) (domain.Warehouse, error) {
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
