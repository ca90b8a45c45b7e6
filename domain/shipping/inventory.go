package shipping

import (
	"fmt"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
)

// ItemKind tells products (picked one by one) from cartons (shipped whole).
type ItemKind string

// The two kinds of inventory record.
const (
	KindProduct ItemKind = "product"
	KindCarton  ItemKind = "carton"
)

// InventoryItem is a product or a carton of an organization, known by SKU.
type InventoryItem struct {
	ID             string
	OrganizationID string
	Kind           ItemKind
	SKU            string
	Name           string
}

// NormalizeSKU trims surrounding white space; SKUs compare case-sensitively.
func NormalizeSKU(s string) string { return strings.TrimSpace(s) }

// Validate checks an inventory record before it is stored.
func (p InventoryItem) Validate() error {
	switch {
	case !domain.ValidID(p.ID):
		return domain.Invalid(string(p.Kind)+".id", "%q is not a valid ID", p.ID)
	case !domain.ValidID(p.OrganizationID):
		return domain.Invalid(string(p.Kind)+".organizationId", "%q is not a valid ID", p.OrganizationID)
	case p.Kind != KindProduct && p.Kind != KindCarton:
		return domain.Invalid("kind", "%q is not product or carton", p.Kind)
	case p.SKU == "" || p.SKU != NormalizeSKU(p.SKU) || len(p.SKU) > 255:
		return domain.Invalid(string(p.Kind)+".sku", "%q must be non-empty, trimmed and at most 255 bytes", p.SKU)
	}
	return nil
}

// Stock is the on-hand count of one product or carton at one warehouse.
type Stock struct {
	WarehouseID string
	Kind        ItemKind
	ItemID      string
	OnHand      int64
}

// Validate checks a stock record before it is stored.
func (s Stock) Validate() error {
	switch {
	case !domain.ValidID(s.WarehouseID):
		return domain.Invalid("stock.warehouseId", "%q is not a valid ID", s.WarehouseID)
	case !domain.ValidID(s.ItemID):
		return domain.Invalid("stock", "exactly one of productId, cartonId is required")
	case s.OnHand < 0:
		return domain.Invalid("stock.onHand", "must not be negative")
	}
	return nil
}

// StockLevel is what a warehouse holds of one item: on hand, reserved by
// pending shipments, and available (on hand − reserved).
type StockLevel struct {
	Warehouse domain.WarehouseRef
	OnHand    int64
	Reserved  int64
}

// Available is on hand minus reserved.
func (s StockLevel) Available() int64 { return s.OnHand - s.Reserved }

// StockShortage is one item a submission asked more of than is available.
type StockShortage struct {
	ItemID    string
	SKU       string
	Requested int64
	Available int64
}

// CheckAvailable is the rule of an SPD submission: every line must be
// available at its warehouse (levels by item ID; an item without a level
// has none). It lists every short item, with what is available (never
// below zero), in the lines' order.
func CheckAvailable(lines []ShipmentLine, levels map[string]StockLevel) error {
	var short []StockShortage
	for _, l := range lines {
		if avail := levels[l.ItemID].Available(); avail < l.Quantity {
			short = append(short, StockShortage{ItemID: l.ItemID, SKU: l.SKU, Requested: l.Quantity, Available: max(avail, 0)})
		}
	}
	if len(short) > 0 {
		return &InsufficientStockError{Items: short}
	}
	return nil
}

// InsufficientStockError lists every short item of a submission; nothing
// was reserved.
type InsufficientStockError struct {
	Items []StockShortage
}

func (e *InsufficientStockError) Error() string {
	return fmt.Sprintf("insufficient stock for %d item(s)", len(e.Items))
}

// ErrorKind implements domain.KindedError.
func (e *InsufficientStockError) ErrorKind() domain.Kind { return domain.KindInsufficientStock }
