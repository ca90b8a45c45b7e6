package shipping

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// ListStockMovements asks for a page of the stock ledger, newest first: an
// item's movements (the console's ledger of a product or carton) or a
// shipment's.
type ListStockMovements struct {
	Query shippingports.StockMovementQuery
	Page  ports.Page
}

// SpanAttributes implements Attributer.
func (q ListStockMovements) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.Query.OrganizationID)
}

// StockMovementPage is one page of movements.
type StockMovementPage = application.Page[shippingports.StockMovement]

// NewListStockMovementsHandler builds the handler. An ID of a shape the
// service never makes names no record: an empty page.
func NewListStockMovementsHandler(ledger shippingports.StockLedger) application.HandlerFunc[ListStockMovements, StockMovementPage] {
	return application.List(func(ctx context.Context, q ListStockMovements) ([]shippingports.StockMovement, bool, error) {
		id := q.Query.ItemID
		if (q.Query.ItemID == "") == (q.Query.ShipmentID == "") {
			return nil, false, domain.Invalid("item", "exactly one of an item and a shipment must be given")
		}
		if id == "" {
			id = q.Query.ShipmentID
		}
		if !domain.ValidID(id) || !domain.ValidID(q.Query.OrganizationID) {
			return nil, false, nil
		}
		if q.Page.Take <= 0 || q.Page.Skip < 0 {
			return nil, false, domain.Invalid("page", "take must be above 0 and skip at least 0")
		}
		return ledger.Movements(ctx, q.Query, q.Page)
	})
}
