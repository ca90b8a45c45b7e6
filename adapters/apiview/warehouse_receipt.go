package apiview

import (
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
)

// WarehouseReceipt is the WarehouseReceipt of api/openapi.yaml.
type WarehouseReceipt struct {
	ID             string                 `json:"id"`
	OrganizationID string                 `json:"organizationId"`
	WarehouseID    string                 `json:"warehouseId"`
	Reference      string                 `json:"reference"`
	ReceivedAt     string                 `json:"receivedAt"`
	Items          []WarehouseReceiptItem `json:"items"`
	CreatedAt      string                 `json:"createdAt"`
}

// WarehouseReceiptItem is one item received: a product or a carton.
type WarehouseReceiptItem struct {
	ProductID string `json:"productId,omitempty"`
	CartonID  string `json:"cartonId,omitempty"`
	SKU       string `json:"sku"`
	Quantity  int64  `json:"quantity"`
}

// WarehouseReceiptOf is r as POST /v0/warehouse/receipts answers it.
func WarehouseReceiptOf(r *warehouse.Receipt) WarehouseReceipt {
	lines := r.Lines()
	items := make([]WarehouseReceiptItem, len(lines))
	for i, l := range lines {
		items[i] = WarehouseReceiptItem{SKU: l.SKU, Quantity: l.Quantity}
		if l.Kind == shipping.KindCarton {
			items[i].CartonID = l.ItemID
		} else {
			items[i].ProductID = l.ItemID
		}
	}
	return WarehouseReceipt{
		ID: r.ID(), OrganizationID: r.OrganizationID(), WarehouseID: r.WarehouseID(), Reference: r.Reference(),
		ReceivedAt: FormatTime(r.ReceivedAt()), Items: items, CreatedAt: FormatTime(r.CreatedAt()),
	}
}
