package intake

import (
	"errors"
	"fmt"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// StorefrontOrder is a storefront order as the intake reads it: the members
// of the intake's mapping (docs/storefront-intake.md), decoded by
// DecodeStorefrontOrder. Strings are as sent (JSON null is ""). The intake processes an
// order only once Check has passed it.
type StorefrontOrder struct {
	ID              int64
	OrderNumber     *int64 // nil when the payload has none
	Test            bool
	Cancelled       bool
	Note            string
	ShippingAddress *shipping.Address // nil when the payload has no shipping_address object
	Lines           []StorefrontLine
}

// StorefrontLine is one line item of a storefront order.
type StorefrontLine struct {
	ID               int64
	SKU              string // as sent; matched after trimming (NormalizeSKU)
	Quantity         int64
	RequiresShipping bool
}

// CheckStorefrontOrderID refuses an order ID that is not positive: the
// storefront's IDs are, and the intake keys its receipts on them.
func CheckStorefrontOrderID(id int64) error {
	if id <= 0 {
		return domain.Invalid("id", "must be a positive integer")
	}
	return nil
}

// Check refuses an order the intake cannot process, naming the member of
// the payload, in this order: the ID (CheckStorefrontOrderID); a NUL
// character in the note, the shipping address or a SKU (CheckText); a
// line's quantity outside 1 … MaxLineQuantity — every line's, also of
// lines that need no shipping: the whole payload is refused or none of it;
// the summed quantity of a SKU to ship above MaxLineQuantity (MergeLines).
func (o StorefrontOrder) Check() error {
	if err := CheckStorefrontOrderID(o.ID); err != nil {
		return err
	}
	if err := shipping.CheckText("note", o.Note); err != nil {
		return err
	}
	if a := o.ShippingAddress; a != nil {
		if err := shipping.CheckText("shipping_address", a.Name+a.Company+a.Address1+a.Address2+a.City+a.State+a.Zip+a.Country+a.Phone); err != nil {
			return err
		}
	}
	for i, l := range o.Lines {
		if err := shipping.CheckText("sku", l.SKU); err != nil {
			return atLine(err, i)
		}
	}
	var total int64 // cannot overflow: each line is within bounds, and a body holds at most millions of lines
	for i, l := range o.Lines {
		if err := shipping.CheckLineQuantity("quantity", l.Quantity); err != nil {
			return atLine(err, i)
		}
		total += l.Quantity
	}
	if total <= shipping.MaxLineQuantity {
		return nil // no SKU's sum can be above the bound
	}
	_, _, err := o.shipmentLines()
	return err
}

// atLine names the member of line i that err refuses as the payload names
// it (line_items[i].sku); the name is made only for a refusal.
func atLine(err error, i int) error {
	var ve *domain.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return &domain.ValidationError{Field: fmt.Sprintf("line_items[%d].%s", i, ve.Field), Reason: ve.Reason}
}

// ShipmentLines returns what a checked order ships: one line per SKU
// (trimmed), in order of first appearance, quantities summed (a storefront
// may list one SKU on many lines; a shipment's bounds are on distinct
// items), and the IDs of lines to ship that have no SKU. Lines that need no
// shipping are left out.
func (o StorefrontOrder) ShipmentLines() (lines []shipping.ShipmentLine, missing []int64) {
	lines, missing, _ = o.shipmentLines()
	return lines, missing
}

func (o StorefrontOrder) shipmentLines() (lines []shipping.ShipmentLine, missing []int64, err error) {
	for _, l := range o.Lines {
		if !l.RequiresShipping {
			continue
		}
		sku := shipping.NormalizeSKU(l.SKU)
		if sku == "" {
			missing = append(missing, l.ID)
			continue
		}
		lines = append(lines, shipping.ShipmentLine{SKU: sku, Quantity: l.Quantity})
	}
	lines, err = shipping.MergeLines(lines, func(l shipping.ShipmentLine) string { return l.SKU }, "line_items")
	return lines, missing, err
}
