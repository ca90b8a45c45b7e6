package application

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/domain"
)

// The use cases that only read are functions of their query (HandlerFunc):
// List makes a list's, FindByID reads one record by its ID.

// OrganizationAttributes are the span attributes of a use case on an
// organization's records: organization.id, then more (shipment.id, …).
func OrganizationAttributes(organizationID string, more ...attribute.KeyValue) []attribute.KeyValue {
	return append([]attribute.KeyValue{attribute.String("organization.id", organizationID)}, more...)
}

// List makes the handler of a list use case: read checks the query and
// reads one page of records and whether more follow; page makes the use
// case's result of them (ShipmentPage, WarehousePage, …).
func List[Q, T, P any](read func(ctx context.Context, q Q) ([]T, bool, error), page func(items []T, more bool) P) HandlerFunc[Q, P] {
	return func(ctx context.Context, q Q) (P, error) {
		items, more, err := read(ctx, q)
		if err != nil {
			var none P
			return none, err
		}
		return page(items, more), nil
	}
}

// FindByID reads one record of the organization with get, or
// domain.ErrNotFound when there is none. An ID of a shape the service
// never makes (`' OR 1=1`) names no record: it is not found without asking
// the database.
func FindByID[T any](ctx context.Context, get func(ctx context.Context, organizationID, id string) (T, error), organizationID, id string) (T, error) {
	if !domain.ValidID(id) {
		var none T
		return none, domain.ErrNotFound
	}
	return get(ctx, organizationID, id)
}
