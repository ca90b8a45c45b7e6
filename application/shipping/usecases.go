package shipping

import (
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/shipping"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// UseCases are the shipments' and stock's use cases, each with its span and
// log line.
type UseCases struct {
	CreateShipment application.Handler[CreateShipment, *shipping.Shipment]
	SubmitShipment application.Handler[SubmitShipment, *shipping.Shipment]
	CancelShipment application.Handler[CancelShipment, *shipping.Shipment]

	ListShipments application.Handler[ListShipments, ShipmentPage]
	GetShipment   application.Handler[GetShipment, *shipping.Shipment]
	ListStock     application.Handler[ListStock, StockPage]
	// ListStockMovements reads the stock ledger (the console).
	ListStockMovements application.Handler[ListStockMovements, StockMovementPage]
}

// New builds the use cases.
func New(d application.Deps[shippingports.Repositories]) *UseCases {
	return &UseCases{
		CreateShipment: application.Decorate("CreateShipment", NewCreateShipmentHandler(d.UnitOfWork, d.Clock, d.IDs, d.Environment), d.Tracer, d.Log),
		SubmitShipment: application.Decorate("SubmitShipment", NewSubmitShipmentHandler(d.UnitOfWork, d.Clock), d.Tracer, d.Log),
		CancelShipment: application.Decorate("CancelShipment", NewCancelShipmentHandler(d.UnitOfWork, d.Clock, d.IDs), d.Tracer, d.Log),

		ListShipments: application.Decorate("ListShipments", NewListShipmentsHandler(d.Repos.Shipments), d.Tracer, d.Log),
		GetShipment:   application.Decorate("GetShipment", NewGetShipmentHandler(d.Repos.Shipments), d.Tracer, d.Log),
		ListStock:     application.Decorate("ListStock", NewListStockHandler(d.Repos.Inventory), d.Tracer, d.Log),
		ListStockMovements: application.Decorate("ListStockMovements", NewListStockMovementsHandler(d.Repos.Stock),
			d.Tracer, d.Log),
	}
}
