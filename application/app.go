package application

import (
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// Application is every use case of the service, decorated.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands change state. The first three are the operator's, run by the
// CLI (`fulfillment seed`, `apikey create`, `apikey revoke`).
type Commands struct {
	Seed         Handler[Seed, ports.FixtureCounts]
	CreateAPIKey Handler[CreateAPIKey, string]
	RevokeAPIKey Handler[RevokeAPIKey, struct{}]

	CreateShipment Handler[CreateShipment, *domain.Shipment]
	SubmitShipment Handler[SubmitShipment, *domain.Shipment]
	CancelShipment Handler[CancelShipment, *domain.Shipment]

	// The warehouse's side.
	ShipShipment Handler[ShipShipment, ShipResult]

	ReceiveStorefrontOrder Handler[ReceiveStorefrontOrder, StorefrontOrderResult]
	RefuseStorefrontOrder  Handler[RefuseStorefrontOrder, struct{}]
	ReplayStorefrontOrder  Handler[ReplayStorefrontOrder, StorefrontOrderResult]
	PurgeFailedOrders      Handler[PurgeFailedOrders, int]

	RecordWarehouseReceipt Handler[RecordWarehouseReceipt, WarehouseReceiptResult]
	RecordWarehouseService Handler[RecordWarehouseService, WarehouseServiceResult]
}

// Queries read state.
type Queries struct {
	ListWarehouses Handler[ListWarehouses, WarehousePage]

	ListInvoices Handler[ListInvoices, InvoicePage]
	GetInvoice   Handler[GetInvoice, *domain.Invoice]
	// ListInvoiceCharges answers whether more charges follow the page.
	ListInvoiceCharges Handler[ListInvoiceCharges, bool]

	ListShipments Handler[ListShipments, ShipmentPage]
	GetShipment   Handler[GetShipment, *domain.Shipment]
	ListStock     Handler[ListStock, StockPage]

	// The warehouse's side.
	ListWarehouseShipments Handler[ListWarehouseShipments, WarehouseShipmentPage]

	GetOrderReceipt      Handler[GetOrderReceipt, *domain.OrderReceipt]
	ListOrderReceipts    Handler[ListOrderReceipts, OrderReceiptPage]
	ListReplayableOrders Handler[ListReplayableOrders, []int64] // `fulfillment orders replay --all-failed`
	CountFailedOrders    Handler[CountFailedOrders, FailedOrders]

	ListAPIKeys Handler[ListAPIKeys, []domain.APIKey] // `fulfillment apikey list`
}

// Deps are what the use cases need.
type Deps struct {
	UnitOfWork ports.UnitOfWork
	Repos      ports.Repositories // bound to the pool, for reads outside a transaction
	Clock      ports.Clock
	IDs        ports.IDGenerator
	Keys       ports.APIKeyGenerator // for CreateAPIKey
	Tracer     trace.Tracer
	Log        *slog.Logger
	// Environment decides whether new shipments are test shipments
	// (sandbox) or real ones (production).
	Environment domain.Environment
	// DecodeStorefrontOrder is the intake's decoder of an order's body,
	// which a replay runs on the kept body.
	DecodeStorefrontOrder StorefrontOrderDecoder
	// FailedOrderRetention is how long a failed order's body is kept after
	// its last delivery (FAILED_ORDER_RETENTION); 0 is the default.
	FailedOrderRetention time.Duration
	// Warehouse are the hooks of the warehouse's reports that billing and
	// the events own; the zero value checks and writes nothing more.
	Warehouse WarehouseHooks
	// SeedRateCards sets a fixture's rate cards (billing's SeedRateCards);
	// nil refuses fixtures that hold any.
	SeedRateCards RateCardSeeder
}

// New builds the application.
func New(d Deps) *Application {
	intake := Decorate("ReceiveStorefrontOrder", NewReceiveStorefrontOrderHandler(
		d.UnitOfWork, d.Clock, d.IDs, d.Environment, d.Log), d.Tracer, d.Log)
	refuse := Decorate("RefuseStorefrontOrder", NewRefuseStorefrontOrderHandler(d.UnitOfWork, d.Clock, d.Log), d.Tracer, d.Log)
	return &Application{
		Commands: Commands{
			Seed:         Decorate("Seed", NewSeedHandler(d.UnitOfWork, d.Clock, d.SeedRateCards), d.Tracer, d.Log),
			CreateAPIKey: Decorate("CreateAPIKey", NewCreateAPIKeyHandler(d.UnitOfWork, d.Keys, d.Clock, d.IDs, d.Environment), d.Tracer, d.Log),
			RevokeAPIKey: Decorate("RevokeAPIKey", NewRevokeAPIKeyHandler(d.Repos.APIKeys), d.Tracer, d.Log),

			CreateShipment: Decorate("CreateShipment", NewCreateShipmentHandler(d.UnitOfWork, d.Clock, d.IDs, d.Environment), d.Tracer, d.Log),
			SubmitShipment: Decorate("SubmitShipment", NewSubmitShipmentHandler(d.UnitOfWork, d.Clock), d.Tracer, d.Log),
			CancelShipment: Decorate("CancelShipment", NewCancelShipmentHandler(d.UnitOfWork, d.Clock), d.Tracer, d.Log),

			ShipShipment: Decorate("ShipShipment", NewShipShipmentHandler(d.UnitOfWork, d.Clock, d.Warehouse), d.Tracer, d.Log),

			ReceiveStorefrontOrder: intake,
			RefuseStorefrontOrder:  refuse,
			ReplayStorefrontOrder: Decorate("ReplayStorefrontOrder", NewReplayStorefrontOrderHandler(
				d.Repos.Receipts, intake, refuse, d.DecodeStorefrontOrder), d.Tracer, d.Log),
			PurgeFailedOrders: Decorate("PurgeFailedOrders", NewPurgeFailedOrdersHandler(
				d.Repos.Receipts, d.Clock, d.FailedOrderRetention), d.Tracer, d.Log),

			RecordWarehouseReceipt: Decorate("RecordWarehouseReceipt", NewRecordWarehouseReceiptHandler(
				d.UnitOfWork, d.Clock, d.IDs, d.Warehouse), d.Tracer, d.Log),
			RecordWarehouseService: Decorate("RecordWarehouseService", NewRecordWarehouseServiceHandler(
				d.UnitOfWork, d.Clock, d.IDs, d.Warehouse), d.Tracer, d.Log),
		},
		Queries: Queries{
			ListWarehouses: Decorate("ListWarehouses", NewListWarehousesHandler(d.Repos.Warehouses), d.Tracer, d.Log),

			ListInvoices: Decorate("ListInvoices", NewListInvoicesHandler(d.Repos.Invoices), d.Tracer, d.Log),
			GetInvoice:   Decorate("GetInvoice", NewGetInvoiceHandler(d.Repos.Invoices), d.Tracer, d.Log),
			ListInvoiceCharges: Decorate("ListInvoiceCharges", NewListInvoiceChargesHandler(d.Repos.Invoices, d.Repos.Charges),
				d.Tracer, d.Log),

			ListShipments: Decorate("ListShipments", NewListShipmentsHandler(d.Repos.Shipments), d.Tracer, d.Log),
			GetShipment:   Decorate("GetShipment", NewGetShipmentHandler(d.Repos.Shipments), d.Tracer, d.Log),
			ListStock:     Decorate("ListStock", NewListStockHandler(d.Repos.Inventory), d.Tracer, d.Log),

			ListWarehouseShipments: Decorate("ListWarehouseShipments", NewListWarehouseShipmentsHandler(d.Repos.Shipments), d.Tracer, d.Log),

			GetOrderReceipt:      Decorate("GetOrderReceipt", NewGetOrderReceiptHandler(d.Repos.Receipts), d.Tracer, d.Log),
			ListOrderReceipts:    Decorate("ListOrderReceipts", NewListOrderReceiptsHandler(d.Repos.Receipts), d.Tracer, d.Log),
			ListReplayableOrders: Decorate("ListReplayableOrders", NewListReplayableOrdersHandler(d.Repos.Receipts), d.Tracer, d.Log),
			CountFailedOrders:    Decorate("CountFailedOrders", NewCountFailedOrdersHandler(d.Repos.Receipts, d.Clock), d.Tracer, d.Log),

			ListAPIKeys: Decorate("ListAPIKeys", NewListAPIKeysHandler(d.Repos.APIKeys), d.Tracer, d.Log),
		},
	}
}
