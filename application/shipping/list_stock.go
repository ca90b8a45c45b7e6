package shipping

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// ListStock asks for a page of the organization's products or cartons with
// their stock per warehouse, optionally of one SKU.
type ListStock struct {
	OrganizationID string
	Kind           shipping.ItemKind
	SKU            string // matched exactly after trimming; "" for all
	Page           ports.Page
}

// SpanAttributes implements Attributer.
func (q ListStock) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(q.OrganizationID, attribute.String("inventory.kind", string(q.Kind)))
}

// StockPage is a page of items with their stock levels and whether more
// follow.
type StockPage = application.Page[shippingports.ItemStock]

// maxSKUBytes is the longest SKU the service stores.
const maxSKUBytes = 255

// NewListStockHandler builds the handler: one page, by SKU. The SKU filter
// is trimmed like SKUs are; an empty one does not filter.
func NewListStockHandler(inv shippingports.InventoryRepository) application.HandlerFunc[ListStock, StockPage] {
	return application.List(func(ctx context.Context, q ListStock) ([]shippingports.ItemStock, bool, error) {
		if q.Kind != shipping.KindProduct && q.Kind != shipping.KindCarton {
			return nil, false, domain.Invalid("kind", "%q is not product or carton", q.Kind)
		}
		sku := shipping.NormalizeSKU(q.SKU)
		if len(sku) > maxSKUBytes || strings.ContainsRune(sku, 0) {
			return nil, false, domain.Invalid("sku", "must be at most %d bytes of text", maxSKUBytes)
		}
		return inv.ListStock(ctx, q.OrganizationID, q.Kind, shippingports.StockFilter{SKU: sku}, q.Page)
	})
}
