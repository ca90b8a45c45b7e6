package intake

import (
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/intake"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// UseCases are the storefront order intake's use cases and those of the
// orders that failed (their receipts, replay and retention), each with its
// span and log line.
type UseCases struct {
	ReceiveStorefrontOrder application.Handler[ReceiveStorefrontOrder, StorefrontOrderResult]
	RefuseStorefrontOrder  application.Handler[RefuseStorefrontOrder, struct{}]
	ReplayStorefrontOrder  application.Handler[ReplayStorefrontOrder, StorefrontOrderResult]
	PurgeFailedOrders      application.Handler[PurgeFailedOrders, int]
	// ReplayFailedOrders is the operator's replay of one failed order or
	// all of an organization's, with its audit record.
	ReplayFailedOrders application.Handler[ReplayFailedOrders, ReplayRun]

	GetOrderReceipt      application.Handler[GetOrderReceipt, *intake.OrderReceipt]
	GetMaskedOrder       application.Handler[GetMaskedOrder, MaskedOrder] // the console's failed order
	ListOrderReceipts    application.Handler[ListOrderReceipts, OrderReceiptPage]
	ListReplayableOrders application.Handler[ListReplayableOrders, []int64] // `fulfillment orders replay --all-failed`
	CountFailedOrders    application.Handler[CountFailedOrders, FailedOrders]
}

// Settings are the intake's own dependencies.
type Settings struct {
	// FailedOrderRetention is how long a failed order's body is kept after
	// its last delivery (FAILED_ORDER_RETENTION); 0 is the default.
	FailedOrderRetention time.Duration
}

// New builds the use cases.
func New(d application.Deps[intakeports.Repositories], s Settings) *UseCases {
	receive := application.Decorate("ReceiveStorefrontOrder", NewReceiveStorefrontOrderHandler(
		d.UnitOfWork, d.Clock, d.IDs, d.Environment, d.Log), d.Tracer, d.Log)
	refuse := application.Decorate("RefuseStorefrontOrder", NewRefuseStorefrontOrderHandler(d.UnitOfWork, d.Clock, d.Log), d.Tracer, d.Log)
	replay := application.Decorate("ReplayStorefrontOrder", NewReplayStorefrontOrderHandler(
		d.Repos.Receipts, receive, refuse), d.Tracer, d.Log)
	replayable := application.Decorate("ListReplayableOrders", NewListReplayableOrdersHandler(d.Repos.Receipts), d.Tracer, d.Log)
	return &UseCases{
		ReceiveStorefrontOrder: receive,
		RefuseStorefrontOrder:  refuse,
		ReplayStorefrontOrder:  replay,
		ReplayFailedOrders: application.Decorate("ReplayFailedOrders", NewReplayFailedOrdersHandler(d, replay, replayable),
			d.Tracer, d.Log),
		PurgeFailedOrders: application.Decorate("PurgeFailedOrders", NewPurgeFailedOrdersHandler(
			d.Repos.Receipts, d.Clock, s.FailedOrderRetention), d.Tracer, d.Log),

		GetOrderReceipt:      application.Decorate("GetOrderReceipt", NewGetOrderReceiptHandler(d.Repos.Receipts), d.Tracer, d.Log),
		GetMaskedOrder:       application.Decorate("GetMaskedOrder", NewGetMaskedOrderHandler(d.Repos.Receipts), d.Tracer, d.Log),
		ListOrderReceipts:    application.Decorate("ListOrderReceipts", NewListOrderReceiptsHandler(d.Repos.Receipts), d.Tracer, d.Log),
		ListReplayableOrders: replayable,
		CountFailedOrders:    application.Decorate("CountFailedOrders", NewCountFailedOrdersHandler(d.Repos.Receipts, d.Clock), d.Tracer, d.Log),
	}
}
