package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Masked stands for a value of an order's personal data (a name, an
// address, an e-mail, a phone) where a person reads a kept body.
const Masked = "•••"

// personalObjects are the members of a storefront order whose whole value
// is a person's: every value inside is masked.
var personalObjects = map[string]bool{
	"customer": true, "billing_address": true, "shipping_address": true, "default_address": true,
	"addresses": true, "client_details": true, "destination": true, "origin_address": true,
	"company": true, "payment_details": true, "note_attributes": true,
}

// personalValues are the members masked wherever they are: a person's
// contacts and names, and what identifies their session or device.
var personalValues = map[string]bool{
	"email": true, "contact_email": true, "phone": true, "first_name": true, "last_name": true,
	"address1": true, "address2": true, "city": true, "zip": true, "province": true, "province_code": true,
	"latitude": true, "longitude": true, "browser_ip": true, "note": true, "customer_locale": true,
	"order_status_url": true, "cart_token": true, "checkout_token": true, "token": true,
	"landing_site": true, "referring_site": true, "device_id": true, "user_agent": true,
}

// ErrBodyNotJSON is MaskOrderBody's answer to a kept body that is not one
// JSON value (a delivery refused as malformed): nothing of it is shown.
var ErrBodyNotJSON = errors.New("the kept body is not JSON")

// MaskOrderBody is a kept storefront order's body as an operator may read
// it: the same JSON, indented, with the members sorted, where every value
// of a person's data is Masked — the customer, the addresses, the client's
// details and anything under them whole, and names, e-mails, phones,
// address lines, coordinates, notes and session tokens wherever they
// appear. Products, quantities, SKUs, prices and the order's own IDs stay,
// which is what an operator needs to see why it failed. Booleans and
// nulls stay (whether a phone was given is not the phone). A body that is
// not one JSON value is ErrBodyNotJSON.
func MaskOrderBody(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, ErrBodyNotJSON
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, ErrBodyNotJSON
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(mask(v, false)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}

// mask is v with its personal values masked; all masks every scalar.
func mask(v any, all bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, member := range x {
			switch {
			case all || personalObjects[k]:
				x[k] = mask(member, true)
			case personalValues[k]:
				x[k] = mask(member, true)
			default:
				x[k] = mask(member, false)
			}
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = mask(e, all)
		}
		return x
	case string:
		if all && x != "" {
			return Masked
		}
		return x
	case json.Number:
		if all {
			return Masked
		}
		return x
	}
	return v // a boolean or null
}
