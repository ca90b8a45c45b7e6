package warehouse

import (
	"github.com/acme3pl/fulfillment/application"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// UseCases are the warehouse's side: what a warehouse reports (receipts,
// services, ships) and reads (its shipments), each with its span and log
// line.
type UseCases struct {
	ShipShipment           application.Handler[ShipShipment, ShipResult]
	RecordWarehouseReceipt application.Handler[RecordWarehouseReceipt, ReceiptResult]
	RecordWarehouseService application.Handler[RecordWarehouseService, ServiceResult]

	ListWarehouseShipments application.Handler[ListWarehouseShipments, ShipmentPage]
}

// New builds the use cases.
func New(d application.Deps[warehouseports.Repositories], billing warehouseports.ReportBilling) *UseCases {
	return &UseCases{
		ShipShipment: application.Decorate("ShipShipment", NewShipShipmentHandler(d.UnitOfWork, d.Clock, billing), d.Tracer, d.Log),
		RecordWarehouseReceipt: application.Decorate("RecordWarehouseReceipt", NewRecordWarehouseReceiptHandler(
			d.UnitOfWork, d.Clock, d.IDs, billing), d.Tracer, d.Log),
		RecordWarehouseService: application.Decorate("RecordWarehouseService", NewRecordWarehouseServiceHandler(
			d.UnitOfWork, d.Clock, d.IDs, billing), d.Tracer, d.Log),

		ListWarehouseShipments: application.Decorate("ListWarehouseShipments", NewListWarehouseShipmentsHandler(d.Repos.Shipments), d.Tracer, d.Log),
	}
}
