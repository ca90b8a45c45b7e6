package intake_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain/intake"
)

// A body shaped like a Shopify orders/create webhook (made up for the test:
// no real person's data).
const personalOrder = `{
  "id": 820982911946154508,
  "name": "#9999",
  "email": "jon.doe@example.org",
  "contact_email": "jon.doe@example.org",
  "phone": "+1 555 010 9999",
  "note": "leave at the back door",
  "browser_ip": "203.0.113.7",
  "order_status_url": "https://shop.example/orders/abc/authenticate?key=secret-key",
  "buyer_accepts_marketing": true,
  "customer": {"id": 115310627314723954, "email": "jon.doe@example.org", "first_name": "Jon", "last_name": "Doe",
    "phone": null, "default_address": {"address1": "12 Elm Street", "city": "Springfield", "zip": "12345"}},
  "billing_address": {"first_name": "Jon", "last_name": "Doe", "name": "Jon Doe", "address1": "12 Elm Street",
    "address2": "Apt 4", "city": "Springfield", "zip": "12345", "country_code": "US", "latitude": 40.1, "longitude": -73.9,
    "phone": "555-0199", "company": "Doe & Sons"},
  "shipping_address": {"name": "Jane Roe", "address1": "<b>9 Oak Road</b>", "city": "Shelbyville", "phone": "555-0142"},
  "client_details": {"user_agent": "Mozilla/5.0", "session_hash": "f00d"},
  "line_items": [{"id": 466157049, "sku": "IPOD2008GREEN", "name": "IPod Nano - 8gb", "quantity": 1, "price": "199.00",
    "requires_shipping": true}]
}`

func TestMaskOrderBodyMasksPersonalData(t *testing.T) {
	got, err := intake.MaskOrderBody([]byte(personalOrder))
	if err != nil {
		t.Fatal(err)
	}
	text := string(got)
	for _, personal := range []string{"jon.doe@example.org", "Jon", "Doe", "Jane Roe", "12 Elm Street", "Apt 4", "Springfield",
		"Shelbyville", "12345", "40.1", "-73.9", "555-0199", "555-0142", "+1 555 010 9999", "back door", "203.0.113.7",
		"secret-key", "Oak Road", "Mozilla", "f00d", "115310627314723954"} {
		if strings.Contains(text, personal) {
			t.Errorf("masked body still holds %q:\n%s", personal, text)
		}
	}
	for _, kept := range []string{"IPOD2008GREEN", "IPod Nano - 8gb", `"quantity": 1`, `"199.00"`, "#9999", "820982911946154508",
		`"requires_shipping": true`, `"buyer_accepts_marketing": true`, `"country_code": "•••"`, `"phone": null`} {
		if !strings.Contains(text, kept) {
			t.Errorf("masked body lost %q:\n%s", kept, text)
		}
	}
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("the masked body is not JSON: %v", err)
	}
}

func TestMaskOrderBodyRefusesWhatIsNotJSON(t *testing.T) {
	for _, body := range []string{"", "{", `{"id": 1} {"id": 2}`, "not json", "{\"email\": \"a\xff\"} x"} {
		if _, err := intake.MaskOrderBody([]byte(body)); !errors.Is(err, intake.ErrBodyNotJSON) {
			t.Errorf("MaskOrderBody(%q) = %v, want ErrBodyNotJSON", body, err)
		}
	}
}

// A body whose personal data sits in a list (addresses) or deep inside
// (a customer's default address) is masked there too; a body without any
// is the same JSON.
func TestMaskOrderBodyShapes(t *testing.T) {
	got, err := intake.MaskOrderBody([]byte(`{"customer":{"addresses":[{"address1":"1 A St"},{"address1":"2 B St"}]},"id":5}`))
	if err != nil || strings.Contains(string(got), " St") {
		t.Fatalf("got %s, %v", got, err)
	}
	plain := `{"id": 7, "line_items": [{"sku": "X", "quantity": 2}]}`
	got, err = intake.MaskOrderBody([]byte(plain))
	var a, b any
	_ = json.Unmarshal([]byte(plain), &a)
	_ = json.Unmarshal(got, &b)
	if err != nil || !jsonEqual(a, b) {
		t.Fatalf("a body without personal data changed: %s, %v", got, err)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
