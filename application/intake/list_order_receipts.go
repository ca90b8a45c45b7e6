package intake

import (
	"context"
	"slices"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// ReceiptErrorCodes are the intake's error codes a receipt can record as
// its last error: the codes of the intake's answers to deliveries it
// processed (refusals of the order, and the service's own failures). The
// codes of answers before processing (API key, signature, size, media
// type) are never recorded. They are the values of the receipt list's
// error filter and of the failed-order gauge's code label.
var ReceiptErrorCodes = []string{
	"invalid_payload", "unknown_skus", "missing_sku", "missing_shipping_address", "no_warehouse",
	"unavailable", "internal",
}

// ParseReceiptFilter reads the receipt list's filters: status succeeded or
// failed, error one of ReceiptErrorCodes; "" does not filter. Anything else
// is a *domain.ValidationError naming the parameter.
func ParseReceiptFilter(status, code string) (intakeports.ReceiptFilter, error) {
	var f intakeports.ReceiptFilter
	switch s := intake.ReceiptStatus(status); s {
	case "":
	case intake.ReceiptSucceeded, intake.ReceiptFailed:
		f.Status = s
	default:
		return f, domain.Invalid("status", "must be succeeded or failed")
	}
	if code != "" && !slices.Contains(ReceiptErrorCodes, code) {
		return f, domain.Invalid("error", "must be an error code of the order intake a receipt records (api/openapi.yaml)")
	}
	f.Error = code
	return f, nil
}

// ListOrderReceipts asks for a page of the organization's order receipts.
type ListOrderReceipts struct {
	OrganizationID string
	Filter         intakeports.ReceiptFilter
	Page           ports.Page
}

// SpanAttributes implements Attributer.
func (q ListOrderReceipts) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID)
}

// OrderReceiptPage is one page of receipts and whether more follow.
type OrderReceiptPage = application.Page[*intake.OrderReceipt]

// NewListOrderReceiptsHandler builds the handler: one page, latest
// delivery first.
func NewListOrderReceiptsHandler(receipts intakeports.OrderReceiptRepository) application.HandlerFunc[ListOrderReceipts, OrderReceiptPage] {
	return application.List(func(ctx context.Context, q ListOrderReceipts) ([]*intake.OrderReceipt, bool, error) {
		return receipts.List(ctx, q.OrganizationID, q.Filter, q.Page)
	})
}

// ListReplayableOrders asks for the IDs of the organization's failed orders
// that keep their body, after After, at most Limit: the walk of
// `fulfillment orders replay --all-failed`, which replays cannot disturb
// (an order replayed again is failed again with a greater ID behind the
// walk, or succeeded and gone from it).
type ListReplayableOrders struct {
	OrganizationID string
	Code           string // only the orders whose last error is this code; "" for all
	After          int64
	Limit          int
}

// SpanAttributes implements Attributer.
func (q ListReplayableOrders) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID)
}

// NewListReplayableOrdersHandler builds the handler: the order IDs in
// ascending order.
func NewListReplayableOrdersHandler(receipts intakeports.OrderReceiptRepository) application.HandlerFunc[ListReplayableOrders, []int64] {
	return func(ctx context.Context, q ListReplayableOrders) ([]int64, error) {
		return receipts.ListKept(ctx, q.OrganizationID, q.Code, q.After, q.Limit)
	}
}
