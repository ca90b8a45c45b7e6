package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// The storefront's order payload, as far as the intake reads it. Mapped
// strings are plain strings: JSON null leaves them "". Integers go through
// jsonInt, never float64. Unknown fields are ignored. scanOrder and
// scanAddress (order_json.go) decode these types as encoding/json decodes
// them by their tags, which the tests use to hold them to it.
type orderPayload struct {
	ID              jsonInt            `json:"id"`
	OrderNumber     jsonInt            `json:"order_number"`
	Test            json.RawMessage    `json:"test"`
	CancelledAt     json.RawMessage    `json:"cancelled_at"`
	Note            string             `json:"note"`
	ShippingAddress json.RawMessage    `json:"shipping_address"`
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

type lineItemPayload struct {
	ID               jsonInt         `json:"id"`
	SKU              string          `json:"sku"`
	Quantity         jsonInt         `json:"quantity"`
	RequiresShipping json.RawMessage `json:"requires_shipping"`
}

// DecodeStorefrontOrder reads an order-creation payload. Its errors are
// *domain.ValidationError (answered 400 invalid_payload): not a JSON object,
// id missing or not a positive integer, a mapped field of the wrong type,
// line_items missing, a quantity that is not a 64-bit integer, a NUL
// character (domain.CheckText, called here so that it is refused before
// the use case acknowledges a cancelled order). Whether a quantity is
// within bounds is the domain's rule, checked by the use case. The returned order carries the id whenever
// it could be read, also with an error, so that the failed attempt can be
// recorded.
func DecodeStorefrontOrder(body []byte) (application.StorefrontOrder, error) {
	var p orderPayload
	valid, typeErr := scanOrder(body, &p)
	switch {
	case !valid:
		return application.StorefrontOrder{}, domain.Invalid("body", "is not valid JSON")
	case typeErr != nil && typeErr.field == "":
		return application.StorefrontOrder{}, domain.Invalid("body", "must be a JSON object")
	}
	if !p.ID.positive() {
		return application.StorefrontOrder{}, domain.Invalid("id", "must be a positive integer")
	}
	order := application.StorefrontOrder{ID: p.ID.Value, OrderNumber: p.OrderNumber.ptr()}
	if typeErr != nil {
		return order, domain.Invalid(typeErr.field, "must be a JSON %s", typeErr.kind)
	}
	if p.LineItems == nil {
		return order, domain.Invalid("line_items", "is required")
	}
	order.Test = isLiteral(p.Test, "true")
	order.Cancelled = len(bytes.TrimSpace(p.CancelledAt)) > 0 && !isLiteral(p.CancelledAt, "null") && !isLiteral(p.CancelledAt, `""`)
	order.Note = p.Note
	strs := []struct{ field, value string }{{"note", p.Note}}
	if sa := bytes.TrimSpace(p.ShippingAddress); len(sa) > 0 && sa[0] == '{' {
		var a addressPayload
		if typeErr := scanAddress(sa, &a); typeErr != nil {
			return order, domain.Invalid("shipping_address."+typeErr.field, "must be a JSON string")
		}
		order.ShippingAddress = &domain.ShippingAddress{
			Name: a.Name, Company: a.Company, Address1: a.Address1, Address2: a.Address2, City: a.City,
			State: a.ProvinceCode, Zip: a.Zip, Country: a.CountryCode, Phone: a.Phone,
		}
		strs = append(strs,
			struct{ field, value string }{"shipping_address", a.Name + a.Company + a.Address1 + a.Address2 + a.City + a.ProvinceCode + a.Zip + a.CountryCode + a.Phone})
	}
	order.Lines = make([]application.StorefrontLine, len(*p.LineItems))
	for i, l := range *p.LineItems {
		if !l.Quantity.Set {
			return order, domain.Invalid(fmt.Sprintf("line_items[%d].quantity", i), "must be an integer")
		}
		order.Lines[i] = application.StorefrontLine{
			ID: l.ID.Value, SKU: l.SKU, Quantity: l.Quantity.Value,
			RequiresShipping: !isLiteral(l.RequiresShipping, "false"),
		}
		strs = append(strs, struct{ field, value string }{fmt.Sprintf("line_items[%d].sku", i), l.SKU})
	}
	for _, s := range strs {
		if err := domain.CheckText(s.field, s.value); err != nil {
			return order, err
		}
	}
	return order, nil
}
