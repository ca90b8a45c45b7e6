package intake

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// orderPayload is the storefront's order payload as far as the intake reads
// it (docs/storefront-intake.md): each field's json tag is the member's
// name, its Go type the JSON type the member must have (payload_plan.go).
// Integers are int64, read from their digits. Members not mapped here are
// skipped whatever they hold.
type orderPayload struct {
	ID              int64              `json:"id"`
	OrderNumber     *int64             `json:"order_number"`
	Test            bool               `json:"test"`
	CancelledAt     *string            `json:"cancelled_at"`
	Note            string             `json:"note"`
	ShippingAddress *addressPayload    `json:"shipping_address"`
	LineItems       *[]lineItemPayload `json:"line_items"`
}

type addressPayload struct {
	Name         string `json:"name"`
	Company      string `json:"company"`
	Address1     string `json:"address1"`
	Address2     string `json:"address2"`
	City         string `json:"city"`
	ProvinceCode string `json:"province_code"`
	Zip          string `json:"zip"`
	CountryCode  string `json:"country_code"`
	Phone        string `json:"phone"`
}

// lineItemPayload is a line item. Its quantity is kept as sent so that a
// missing or malformed one is named with the line's index.
type lineItemPayload struct {
	ID               int64           `json:"id"`
	SKU              string          `json:"sku"`
	Quantity         json.RawMessage `json:"quantity"`
	RequiresShipping *bool           `json:"requires_shipping"`
}

// orderPayloadPlan is the walk's reading of orderPayload's tags, made once.
var orderPayloadPlan = planPayload(reflect.TypeFor[orderPayload]())

// DecodeStorefrontOrder reads an order-creation payload, as the storefront
// route and a replay of a kept body read it. Its errors are
// *domain.ValidationError (answered 400 invalid_payload), in this order:
// not JSON; not a JSON object; id repeated, missing or not a positive
// integer; the first mapped member, in the body's order, of the wrong JSON
// type; the first mapped member, in the body's order, that occurs twice in
// its object or is a string that is not valid UTF-8; line_items missing; a
// cancelled_at that is not an RFC 3339 timestamp; a quantity that is not a
// 64-bit integer; then what Check refuses (NUL characters, quantities out
// of bounds), so that it is refused before the use case acknowledges a
// cancelled order. The returned order carries the id whenever it could be
// read, also with an error, so that the failed attempt can be recorded
// (and the order number, unless it is repeated or of the wrong type).
func DecodeStorefrontOrder(body []byte) (StorefrontOrder, error) {
	var p orderPayload
	faults := decodePayload(body, reflect.ValueOf(&p).Elem(), orderPayloadPlan)
	switch {
	case faults.notJSON:
		return StorefrontOrder{}, domain.Invalid("body", "is not valid JSON")
	case faults.notObject:
		return StorefrontOrder{}, domain.Invalid("body", "must be a JSON object")
	case faults.repeatedAtTop("id"): // names no order: nothing can be recorded
		return StorefrontOrder{}, domain.Invalid("id", "occurs more than once")
	}
	if err := CheckStorefrontOrderID(p.ID); err != nil {
		return StorefrontOrder{}, err
	}
	order := StorefrontOrder{ID: p.ID, OrderNumber: p.OrderNumber}
	if err := faults.refusal(); err != nil {
		return order, err
	}
	if p.LineItems == nil {
		return order, domain.Invalid("line_items", "is required")
	}
	if p.CancelledAt != nil {
		// Null or absent is not cancelled; a string says when it was, or
		// nothing can be read from it ("", "false", "null").
		if _, err := time.Parse(time.RFC3339, *p.CancelledAt); err != nil {
			return order, domain.Invalid("cancelled_at", "must be null or an RFC 3339 timestamp")
		}
	}
	order.Test = p.Test
	order.Cancelled = p.CancelledAt != nil
	order.Note = p.Note
	if a := p.ShippingAddress; a != nil {
		order.ShippingAddress = &shipping.Address{
			Name: a.Name, Company: a.Company, Address1: a.Address1, Address2: a.Address2, City: a.City,
			State: a.ProvinceCode, Zip: a.Zip, Country: a.CountryCode, Phone: a.Phone,
		}
	}
	order.Lines = make([]StorefrontLine, len(*p.LineItems))
	for i, l := range *p.LineItems {
		quantity, err := strconv.ParseInt(string(l.Quantity), 10, 64)
		if err != nil {
			return order, domain.Invalid(fmt.Sprintf("line_items[%d].quantity", i), "must be an integer")
		}
		order.Lines[i] = StorefrontLine{
			ID: l.ID, SKU: l.SKU, Quantity: quantity,
			RequiresShipping: l.RequiresShipping == nil || *l.RequiresShipping,
		}
	}
	return order, order.Check()
}
