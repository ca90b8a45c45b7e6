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

// Page is one page of a list use case's records and whether more follow;
// each list names its own (ShipmentPage, WarehousePage, …).
type Page[T any] struct {
	Items []T
	More  bool
}

// List makes the handler of a list use case: read checks the query and
// reads one page of records and whether more follow.
func List[Q, T any](read func(ctx context.Context, q Q) ([]T, bool, error)) HandlerFunc[Q, Page[T]] {
	return func(ctx context.Context, q Q) (Page[T], error) {
		items, more, err := read(ctx, q)
		if err != nil {
			return Page[T]{}, err
		}
		return Page[T]{Items: items, More: more}, nil
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
