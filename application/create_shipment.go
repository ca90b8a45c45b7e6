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
// test shipment (CONTRACT §7); in production none is.
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

// Handle checks the warehouse and the items against the organization's
// records and stores the draft, in one transaction. The warehouse is
// checked first (422 invalid_warehouse), then the items (422 unknown_items).
func (h *CreateShipmentHandler) Handle(ctx context.Context, c CreateShipment) (*domain.Shipment, error) {
	if c.WarehouseID == "" {
		return nil, domain.Invalid("warehouseId", "is required")
	}
	itemKind := c.Kind.Items()
	var created *domain.Shipment
	err := h.uow.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		wh, err := h.warehouse(ctx, r, c.OrganizationID, c.WarehouseID)
		if err != nil {
			return err
		}
		ids := make([]string, len(c.Lines))
		for i, l := range c.Lines {
			ids[i] = l.ItemID
		}
		known, err := r.Inventory.FindByIDs(ctx, c.OrganizationID, itemKind, ids)
		if err != nil {
			return fmt.Errorf("find %ss: %w", itemKind, err)
		}
		lines := make([]domain.ShipmentLine, len(c.Lines))
		var unknown []string
		seen := make(map[string]bool, len(c.Lines))
		for i, l := range c.Lines {
			item, ok := known[l.ItemID]
			if !ok {
				if !seen[l.ItemID] {
					seen[l.ItemID] = true
					unknown = append(unknown, l.ItemID)
				}
				continue
			}
			lines[i] = domain.ShipmentLine{ItemID: item.ID, SKU: item.SKU, Quantity: l.Quantity}
		}
		if len(unknown) > 0 {
			return &domain.UnknownItemsError{Kind: itemKind, IDs: unknown}
		}
		s, err := domain.NewShipment(domain.NewShipmentParams{
			ID: h.ids.NewID("shp"), OrganizationID: c.OrganizationID, Kind: c.Kind,
			Warehouse: domain.WarehouseRef{ID: wh.ID, Name: wh.Name},
			Address:   c.Address, Notes: c.Notes, Lines: lines, Test: h.test, Now: h.clock.Now(),
		})
		if err != nil {
			return err
		}
		if err := r.Shipments.Create(ctx, s); err != nil {
			return fmt.Errorf("store shipment: %w", err)
		}
		created = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	return created, nil
}

// warehouse returns the active warehouse the organization may use, or
// domain.ErrInvalidWarehouse.
func (h *CreateShipmentHandler) warehouse(ctx context.Context, r ports.Repositories, org, id string) (domain.Warehouse, error) {
	if !domain.ValidID(id) {
		return domain.Warehouse{}, fmt.Errorf("warehouse %q: %w", id, domain.ErrInvalidWarehouse)
	}
	wh, err := r.Warehouses.ActiveForOrganization(ctx, org, id)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Warehouse{}, fmt.Errorf("warehouse %s: %w", id, domain.ErrInvalidWarehouse)
	}
	if err != nil {
		return domain.Warehouse{}, fmt.Errorf("find warehouse %s: %w", id, err)
	}
	return wh, nil
}
