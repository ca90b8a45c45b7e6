package intake

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// orderPayload is the storefront's order payload as far as the intake reads
// it, decoded by encoding/json: member names match case-insensitively,
// members not mapped here are skipped whatever their type, and JSON null
// leaves a member as if it were absent. What encoding/json does not refuse
// — a mapped member given twice (it merges them), a mapped string that is
// not valid UTF-8 (it replaces the bytes) — checkMembers refuses. Each field's Go type is the JSON
// type the member must have, so a member of another type is a
// *json.UnmarshalTypeError naming it; encoding/json keeps decoding after
// one, so the id is read wherever it stands in the body. Integers are
// int64, which encoding/json reads from their digits, never through float64.
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

// lineItemPayload is a line item. Its quantity is kept raw so that a
// missing or malformed one is named with the line's index.
type lineItemPayload struct {
	ID               int64           `json:"id"`
	SKU              string          `json:"sku"`
	Quantity         json.RawMessage `json:"quantity"`
	RequiresShipping *bool           `json:"requires_shipping"`
}

// DecodeStorefrontOrder reads an order-creation payload. Its errors are
// *domain.ValidationError (answered 400 invalid_payload), in this order:
// not JSON; not a JSON object; id repeated, missing or not a positive
// integer; the first mapped member, in the body's order, of the wrong JSON
// type; the first mapped member, in the body's order, that occurs twice in
// its object or is a string that is not valid UTF-8 (checkMembers);
// line_items missing; a cancelled_at that is not an RFC 3339 timestamp; a
// quantity that is not a 64-bit integer; then what the domain refuses
// (intake.StorefrontOrder.Check: NUL characters, quantities out of bounds),
// so that it is refused before the use case acknowledges a cancelled
// order. The returned order carries the id whenever it could be read, also
// with an error, so that the failed attempt can be recorded.
func DecodeStorefrontOrder(body []byte) (intake.StorefrontOrder, error) {
	var p orderPayload
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(body, &p); err != nil && !errors.As(err, &typeErr) {
		return intake.StorefrontOrder{}, domain.Invalid("body", "is not valid JSON")
	}
	if typeErr != nil && typeErr.Field == "" {
		return intake.StorefrontOrder{}, domain.Invalid("body", "must be a JSON object")
	}
	// The body is valid JSON and an object (or null) from here on.
	memberErr, idRepeated := checkMembers(body)
	if idRepeated {
		return intake.StorefrontOrder{}, domain.Invalid("id", "occurs more than once")
	}
	if err := intake.CheckStorefrontOrderID(p.ID); err != nil {
		return intake.StorefrontOrder{}, err
	}
	order := intake.StorefrontOrder{ID: p.ID, OrderNumber: p.OrderNumber}
	if typeErr != nil {
		if typeErr.Field == "order_number" {
			order.OrderNumber = nil
		}
		return order, domain.Invalid(typeErr.Field, "must be %s", jsonKind(typeErr.Type))
	}
	if memberErr != nil {
		if memberErr.Field == "order_number" {
			order.OrderNumber = nil
		}
		return order, memberErr
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
	order.Lines = make([]intake.StorefrontLine, len(*p.LineItems))
	for i, l := range *p.LineItems {
		quantity, ok := httpapi.JSONInteger(l.Quantity)
		if !ok {
			return order, domain.Invalid(fmt.Sprintf("line_items[%d].quantity", i), "must be an integer")
		}
		order.Lines[i] = intake.StorefrontLine{
			ID: l.ID, SKU: l.SKU, Quantity: quantity,
			RequiresShipping: l.RequiresShipping == nil || *l.RequiresShipping,
		}
	}
	return order, order.Check()
}

// jsonKind names the JSON type a payload field's Go type is decoded from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a JSON string"
	case reflect.Bool:
		return "a JSON boolean"
	case reflect.Int64:
		return "a 64-bit integer"
	case reflect.Slice:
		return "a JSON array"
	}
	return "a JSON object"
}
