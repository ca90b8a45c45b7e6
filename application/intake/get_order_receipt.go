package intake

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/intake"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
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
func NewGetOrderReceiptHandler(receipts intakeports.OrderReceiptRepository) application.HandlerFunc[GetOrderReceipt, *intake.OrderReceipt] {
	return func(ctx context.Context, q GetOrderReceipt) (*intake.OrderReceipt, error) {
		return receipts.Get(ctx, q.OrganizationID, q.OrderID)
	}
}

// GetMaskedOrder asks for the organization's record of one storefront
// order and its kept body with the personal data masked
// (intake.MaskOrderBody): what the console shows of a failed order.
type GetMaskedOrder struct {
	OrganizationID string
	OrderID        int64
}

// SpanAttributes implements Attributer.
func (q GetMaskedOrder) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID, attribute.Int64("storefront.order.id", q.OrderID))
}

// MaskedOrder is a receipt and its kept body, masked: nil when none is
// kept; BodyNotJSON when the body kept is not JSON (nothing of it shown).
type MaskedOrder struct {
	Receipt     *intake.OrderReceipt
	Body        []byte
	BodyNotJSON bool
}

// NewGetMaskedOrderHandler builds the handler: domain.ErrNotFound when the
// organization has no receipt of the order. The unmasked body never leaves
// it.
func NewGetMaskedOrderHandler(receipts intakeports.OrderReceiptRepository) application.HandlerFunc[GetMaskedOrder, MaskedOrder] {
	return func(ctx context.Context, q GetMaskedOrder) (MaskedOrder, error) {
		r, body, err := receipts.GetWithPayload(ctx, q.OrganizationID, q.OrderID)
		if err != nil {
			return MaskedOrder{}, err
		}
		out := MaskedOrder{Receipt: r}
		if len(body) > 0 {
			masked, err := intake.MaskOrderBody(body)
			if err != nil {
				out.BodyNotJSON = true
			} else {
				out.Body = masked
			}
		}
		return out, nil
	}
}
