package intake

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

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
	return []attribute.KeyValue{
		attribute.String("organization.id", q.OrganizationID),
		attribute.Int64("storefront.order.id", q.OrderID),
	}
}

// GetOrderReceiptHandler answers GetOrderReceipt.
type GetOrderReceiptHandler struct {
	receipts ports.OrderReceiptRepository
}

// NewGetOrderReceiptHandler builds the handler.
func NewGetOrderReceiptHandler(receipts ports.OrderReceiptRepository) *GetOrderReceiptHandler {
	return &GetOrderReceiptHandler{receipts: receipts}
}

// Handle returns the receipt, or domain.ErrNotFound when the organization
// has none for this order.
func (h *GetOrderReceiptHandler) Handle(ctx context.Context, q GetOrderReceipt) (*intake.OrderReceipt, error) {
	return h.receipts.Get(ctx, q.OrganizationID, q.OrderID)
}
