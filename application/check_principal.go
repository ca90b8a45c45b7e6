package application

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// CheckPrincipal asks whether credentials may be made for, or an operator's
// command run on, an organization or a warehouse (`fulfillment token mint`,
// `apikey list`, `orders …`): exactly one of the two is set.
type CheckPrincipal struct {
	OrganizationID string
	WarehouseID    string
}

// SpanAttributes implements Attributer.
func (q CheckPrincipal) SpanAttributes() []attribute.KeyValue {
	if q.WarehouseID != "" {
		return []attribute.KeyValue{attribute.String("warehouse.id", q.WarehouseID)}
	}
	return OrganizationAttributes(q.OrganizationID)
}

// NewCheckPrincipalHandler builds the handler: nil when the organization
// exists, or the warehouse exists and is active (the only warehouses whose
// tokens the service trusts); domain.ErrNotFound, naming it, otherwise. An
// ID of a shape the service never makes names nothing, without asking the
// database.
func NewCheckPrincipalHandler(orgs ports.OrganizationRepository, warehouses ports.WarehouseRepository) HandlerFunc[CheckPrincipal, struct{}] {
	return func(ctx context.Context, q CheckPrincipal) (struct{}, error) {
		switch {
		case (q.OrganizationID == "") == (q.WarehouseID == ""):
			return struct{}{}, domain.Invalid("principal", "exactly one of organization and warehouse must be given")
		case q.WarehouseID != "":
			if !domain.ValidID(q.WarehouseID) {
				return struct{}{}, fmt.Errorf("warehouse %q: %w or inactive", q.WarehouseID, domain.ErrNotFound)
			}
			active, err := warehouses.IsActive(ctx, q.WarehouseID)
			if err != nil {
				return struct{}{}, fmt.Errorf("warehouse %q: %w", q.WarehouseID, err)
			}
			if !active {
				return struct{}{}, fmt.Errorf("warehouse %q: %w or inactive", q.WarehouseID, domain.ErrNotFound)
			}
			return struct{}{}, nil
		}
		if !domain.ValidID(q.OrganizationID) {
			return struct{}{}, fmt.Errorf("organization %q: %w", q.OrganizationID, domain.ErrNotFound)
		}
		if _, err := orgs.Get(ctx, q.OrganizationID); err != nil {
			return struct{}{}, fmt.Errorf("organization %q: %w", q.OrganizationID, err)
		}
		return struct{}{}, nil
	}
}
