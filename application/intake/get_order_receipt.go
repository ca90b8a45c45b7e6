package intake

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports"
)

// GetOrderReceipt asks for the organization's record of one storefront
// order.
type GetOrderReceipt struct {
	OrganizationID string
	OrderID        int64
}

// SpanAttributes implements Attributer.
func (q GetOrderReceipt) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID, attribute.Int64("storefront.order.id", q.OrderID))
}

// NewGetOrderReceiptHandler builds the handler: the receipt, or
// domain.ErrNotFound when the organization has none for this order.
func NewGetOrderReceiptHandler(receipts ports.OrderReceiptRepository) application.HandlerFunc[GetOrderReceipt, *intake.OrderReceipt] {
	return func(ctx context.Context, q GetOrderReceipt) (*intake.OrderReceipt, error) {
		return receipts.Get(ctx, q.OrganizationID, q.OrderID)
	}
}
