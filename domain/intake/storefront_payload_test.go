package intake_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// oneLine is the line_items member of a body whose test is about another
// member: one line, valid.
const oneLine = `"line_items":[{"id":1,"sku":"A","quantity":1}]`

// readSample reads a storefront payload of docs/samples.
func readSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeStorefrontOrderSample(t *testing.T) {
	o, err := intake.DecodeStorefrontOrder(readSample(t, "orders-create.json"))
	if err != nil {
		t.Fatal(err)
	}
	num := int64(1042)
	want := intake.StorefrontOrder{
		ID: 5726128734520, OrderNumber: &num, Note: "Bitte beim Nachbarn (Hinterhaus, 2. OG) abgeben 🙏 — danke!",
		ShippingAddress: &shipping.Address{Name: "Zoë Müller", Company: "Bäckerei Größe GmbH",
			Address1: "Straße des 17. Juni 135", Address2: "Hinterhaus, 2. OG, c/o Ünal", City: "Berlin", State: "",
			Zip: "10623", Country: "DE", Phone: "+49 30 1234567"},
		Lines: []intake.StorefrontLine{
			{ID: 14658123456011, SKU: "SOCK-MER-CH-4346", Quantity: 2, RequiresShipping: true},
			{ID: 14658123456012, SKU: "KEY-LTH-01 ", Quantity: 1, RequiresShipping: true},
			{ID: 14658123456013, SKU: "", Quantity: 1, RequiresShipping: false},
		},
	}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("decoded\n %+v\nwant\n %+v", o, want)
	}
	pickup, err := intake.DecodeStorefrontOrder(readSample(t, "orders-create-pickup.json"))
	if err != nil || pickup.ShippingAddress != nil || pickup.ID != 5726128734599 || len(pickup.Lines) != 1 {
		t.Fatalf("pickup %+v, %v; want no shipping address", pickup, err)
	}
}

func TestDecodeStorefrontOrder(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantID  int64 // the id the refusal still carries (0: none)
		wantErr string
		check   func(t *testing.T, o intake.StorefrontOrder)
	}{
		{name: "id above 2^53 exactly", body: `{"id":9007199254740993,"order_number":9007199254740995,` + oneLine + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.ID != 9007199254740993 || *o.OrderNumber != 9007199254740995 {
					t.Errorf("id %d number %d", o.ID, *o.OrderNumber)
				}
			}},
		{name: "largest int64", body: `{"id":9223372036854775807,"line_items":[{"id":9223372036854775807,"sku":"A","quantity":1000000000}]}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.ID != 1<<63-1 || o.Lines[0].ID != 1<<63-1 || o.Lines[0].Quantity != 1_000_000_000 {
					t.Errorf("%+v", o)
				}
			}},
		{name: "nulls map to empty strings", body: `{"id":1,"note":null,"shipping_address":{"name":null,"company":null,"address1":"x","address2":null,"province_code":null,"country_code":null,"phone":null,"zip":null,"city":null},"line_items":[{"id":1,"sku":null,"quantity":1,"requires_shipping":null}]}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.Note != "" || *o.ShippingAddress != (shipping.Address{Address1: "x"}) || o.Lines[0].SKU != "" || !o.Lines[0].RequiresShipping {
					t.Errorf("%+v %+v", o, o.ShippingAddress)
				}
			}},
		{name: "null order number", body: `{"id":1,"order_number":null,` + oneLine + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.OrderNumber != nil {
					t.Errorf("order number %v", *o.OrderNumber)
				}
			}},
		{name: "test and cancelled", body: `{"id":1,"test":true,"cancelled_at":"2025-03-14T11:00:00+01:00",` + oneLine + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if !o.Test || !o.Cancelled {
					t.Errorf("%+v", o)
				}
			}},
		{name: "not cancelled", body: `{"id":1,"test":false,"cancelled_at":null,` + oneLine + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.Test || o.Cancelled {
					t.Errorf("%+v", o)
				}
			}},
		{name: "shipping address not an object", body: `{"id":1,"shipping_address":"Berlin",` + oneLine + `}`, wantID: 1, wantErr: "shipping_address"},
		{name: "unicode and emoji kept", body: `{"id":1,"note":"🙏 Łukasz \u00e9\ud83d\ude00","shipping_address":{"name":"山田 太郎"},` + oneLine + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.Note != "🙏 Łukasz é😀" || o.ShippingAddress.Name != "山田 太郎" {
					t.Errorf("%q %q", o.Note, o.ShippingAddress.Name)
				}
			}},
		{name: "empty line items", body: `{"id":1,"line_items":[]}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if len(o.Lines) != 0 {
					t.Errorf("%+v", o.Lines)
				}
			}},
		{name: "not JSON", body: `{"id":1,`, wantErr: "body"},
		{name: "empty body", body: ``, wantErr: "body"},
		{name: "array", body: `[{"id":1}]`, wantErr: "body"},
		{name: "string", body: `"x"`, wantErr: "body"},
		{name: "trailing garbage", body: `{"id":1,` + oneLine + `} x`, wantErr: "body"},
		{name: "no id", body: `{` + oneLine + `}`, wantErr: "id"},
		{name: "null id", body: `{"id":null,` + oneLine + `}`, wantErr: "id"},
		{name: "zero id", body: `{"id":0,` + oneLine + `}`, wantErr: "id"},
		{name: "negative id", body: `{"id":-5,` + oneLine + `}`, wantErr: "id"},
		{name: "fractional id", body: `{"id":1.5,` + oneLine + `}`, wantErr: "id"},
		{name: "float-looking id", body: `{"id":5726128734520.0,` + oneLine + `}`, wantErr: "id"},
		{name: "exponent id", body: `{"id":1e3,` + oneLine + `}`, wantErr: "id"},
		{name: "string id", body: `{"id":"5726128734520",` + oneLine + `}`, wantErr: "id"},
		{name: "id beyond int64", body: `{"id":9223372036854775808,` + oneLine + `}`, wantErr: "id"},
		{name: "no line items", body: `{"id":7}`, wantID: 7, wantErr: "line_items"},
		{name: "null line items", body: `{"id":7,"line_items":null}`, wantID: 7, wantErr: "line_items"},
		{name: "line items not an array", body: `{"id":7,"line_items":{"sku":"A"}}`, wantID: 7, wantErr: "line_items"},
		{name: "largest int64 quantity", body: `{"id":7,"line_items":[{"sku":"A","quantity":9223372036854775807}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "quantity beyond int64", body: `{"id":7,"line_items":[{"sku":"A","quantity":1},{"sku":"B","quantity":9223372036854775808}]}`, wantID: 7, wantErr: "line_items[1].quantity"},
		{name: "no quantity", body: `{"id":7,"line_items":[{"sku":"A"}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "string quantity", body: `{"id":7,"line_items":[{"sku":"A","quantity":"2"}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "fractional quantity", body: `{"id":7,"line_items":[{"sku":"A","quantity":1.5}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "sku not a string", body: `{"id":7,"line_items":[{"sku":5,"quantity":1}]}`, wantID: 7, wantErr: "line_items.sku"},
		{name: "note not a string", body: `{"id":7,"note":5,` + oneLine + `}`, wantID: 7, wantErr: "note"},
		{name: "address field not a string", body: `{"id":7,"shipping_address":{"zip":10623},` + oneLine + `}`, wantID: 7, wantErr: "shipping_address.zip"},
		{name: "NUL in a sku", body: `{"id":7,"line_items":[{"sku":"A\u0000","quantity":1}]}`, wantID: 7, wantErr: "line_items[0].sku"},
		{name: "NUL in the note", body: `{"id":7,"note":"\u0000",` + oneLine + `}`, wantID: 7, wantErr: "note"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := intake.DecodeStorefrontOrder([]byte(tt.body))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, o)
				return
			}
			var ve *domain.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.wantErr {
				t.Fatalf("error %v, want one about %s", err, tt.wantErr)
			}
			if o.ID != tt.wantID {
				t.Errorf("refusal carries id %d, want %d", o.ID, tt.wantID)
			}
		})
	}
}

// The contract's types (api/openapi.yaml, docs/storefront-intake.md): a
// mapped member of the wrong JSON type is refused, naming it, and null
// counts as absent; nothing is guessed.
func TestDecodeStorefrontOrderTypes(t *testing.T) {
	tests := []struct {
		name, body, wantField, wantReason string
		wantNumber                        *int64 // the order number the refusal carries
	}{
		{"test a string", `{"id":7,"test":"true",` + oneLine + `}`, "test", "must be a JSON boolean", nil},
		{"test a number", `{"id":7,"test":1,` + oneLine + `}`, "test", "must be a JSON boolean", nil},
		{"cancelled_at false", `{"id":7,"cancelled_at":false,` + oneLine + `}`, "cancelled_at", "must be a JSON string", nil},
		{"cancelled_at a number", `{"id":7,"cancelled_at":1710410400,` + oneLine + `}`, "cancelled_at", "must be a JSON string", nil},
		{"requires_shipping a string", `{"id":7,"line_items":[{"id":1,"sku":"A","quantity":1,"requires_shipping":"false"}]}`,
			"line_items.requires_shipping", "must be a JSON boolean", nil},
		{"order_number a string", `{"id":7,"order_number":"abc",` + oneLine + `}`, "order_number", "must be a 64-bit integer", nil},
		{"order_number fractional", `{"id":7,"order_number":1042.5,` + oneLine + `}`, "order_number", "must be a 64-bit integer", nil},
		{"order_number beyond int64", `{"id":7,"order_number":9223372036854775808,` + oneLine + `}`, "order_number", "must be a 64-bit integer", nil},
		{"line id a string", `{"id":7,"order_number":1042,"line_items":[{"id":"14658123456011","sku":"A","quantity":1}]}`,
			"line_items.id", "must be a 64-bit integer", ptr(int64(1042))},
		{"line id fractional", `{"id":7,"line_items":[{"id":1.5,"sku":"A","quantity":1}]}`, "line_items.id", "must be a 64-bit integer", nil},
		{"shipping_address a string", `{"id":7,"shipping_address":"Berlin",` + oneLine + `}`, "shipping_address", "must be a JSON object", nil},
		{"shipping_address an array", `{"id":7,"shipping_address":[],` + oneLine + `}`, "shipping_address", "must be a JSON object", nil},
		{"address member a number", `{"id":7,"shipping_address":{"zip":10623},` + oneLine + `}`, "shipping_address.zip", "must be a JSON string", nil},
		{"address member a boolean", `{"id":7,"shipping_address":{"province_code":false},` + oneLine + `}`,
			"shipping_address.province_code", "must be a JSON string", nil},
		{"note an object", `{"id":7,"note":{},` + oneLine + `}`, "note", "must be a JSON string", nil},
		{"sku a number", `{"id":7,"line_items":[{"sku":5,"quantity":1}]}`, "line_items.sku", "must be a JSON string", nil},
		{"line_items an object", `{"id":7,"line_items":{"sku":"A"}}`, "line_items", "must be a JSON array", nil},
		{"a line not an object", `{"id":7,"line_items":[1]}`, "line_items", "must be a JSON object", nil},
		// The id is read wherever it stands, so that the attempt is recorded.
		{"id after the wrong member", `{"test":"yes","order_number":12,` + oneLine + `,"id":7}`, "test", "must be a JSON boolean", ptr(int64(12))},
		// The first wrong member in the body's order is named.
		{"first of two", `{"id":7,"note":5,"test":"x",` + oneLine + `}`, "note", "must be a JSON string", nil},
		{"first of two, other order", `{"id":7,"test":"x","note":5,` + oneLine + `}`, "test", "must be a JSON boolean", nil},
		// Member names match case-insensitively, as encoding/json matches them.
		{"another case", `{"ID":7,"Test":"true",` + oneLine + `}`, "test", "must be a JSON boolean", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := intake.DecodeStorefrontOrder([]byte(tt.body))
			var ve *domain.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.wantField || ve.Reason != tt.wantReason {
				t.Fatalf("error %v, want %s: %s", err, tt.wantField, tt.wantReason)
			}
			if o.ID != 7 || !reflect.DeepEqual(o.OrderNumber, tt.wantNumber) {
				t.Errorf("refusal carries id %d and number %v, want 7 and %v", o.ID, o.OrderNumber, tt.wantNumber)
			}
		})
	}
	// Before any type error: not JSON, not an object, no id.
	for body, want := range map[string]string{
		`{"id":7,"test":"x",`:                   "body: is not valid JSON",
		`[{"id":7,"test":"x"}]`:                 "body: must be a JSON object",
		`{"id":"7","test":"x",` + oneLine:       "body: is not valid JSON",
		`{"id":"7","test":"x",` + oneLine + `}`: "id: must be a positive integer",
		`{"test":"x",` + oneLine + `}`:          "id: must be a positive integer",
	} {
		_, err := intake.DecodeStorefrontOrder([]byte(body))
		var ve *domain.ValidationError
		if !errors.As(err, &ve) || ve.Field+": "+ve.Reason != want {
			t.Errorf("%s: error %v, want %s", body, err, want)
		}
	}
}

// Values are not guessed either (api/openapi.yaml, docs/storefront-intake.md):
// a cancelled_at that is no timestamp, a mapped member given twice in its
// object, a mapped string that is not valid UTF-8 are refused, naming the
// member; the refusal carries the id, so that the attempt is recorded.
// Members not mapped are ignored whatever they hold.
func TestDecodeStorefrontOrderValues(t *testing.T) {
	const line = `{"id":1,"sku":"A","quantity":1}`
	const address = `{"name":"Ada","city":"Berlin","country_code":"DE"}`
	tests := []struct{ name, body, want string }{
		{"cancelled_at empty", `{"id":7,"cancelled_at":"","line_items":[` + line + `]}`, "cancelled_at: must be null or an RFC 3339 timestamp"},
		{"cancelled_at false", `{"id":7,"cancelled_at":"false","line_items":[` + line + `]}`, "cancelled_at: must be null or an RFC 3339 timestamp"},
		{"cancelled_at null as text", `{"id":7,"cancelled_at":"null","line_items":[` + line + `]}`, "cancelled_at: must be null or an RFC 3339 timestamp"},
		{"cancelled_at a date only", `{"id":7,"cancelled_at":"2024-03-14","line_items":[` + line + `]}`, "cancelled_at: must be null or an RFC 3339 timestamp"},
		{"line_items twice", `{"id":7,"line_items":[{"id":1,"sku":"A","quantity":1,"requires_shipping":false}],"line_items":[{"id":2,"sku":"B","quantity":1}]}`,
			"line_items: occurs more than once"},
		{"line_items twice, another case", `{"id":7,"line_items":[` + line + `],"Line_Items":[` + line + `]}`, "line_items: occurs more than once"},
		{"sku twice in a line", `{"id":7,"line_items":[` + line + `,{"id":2,"sku":"A","quantity":1,"sku":"B"}]}`, "line_items[1].sku: occurs more than once"},
		{"quantity twice in a line", `{"id":7,"line_items":[{"id":2,"sku":"A","quantity":1,"QUANTITY":5}]}`, "line_items[0].quantity: occurs more than once"},
		{"shipping_address twice", `{"id":7,"shipping_address":` + address + `,"shipping_address":` + address + `,"line_items":[` + line + `]}`,
			"shipping_address: occurs more than once"},
		{"a member of the address twice", `{"id":7,"shipping_address":{"zip":"1","city":"B","zip":"2"},"line_items":[` + line + `]}`,
			"shipping_address.zip: occurs more than once"},
		{"cancelled_at twice", `{"id":7,"cancelled_at":null,"line_items":[` + line + `],"cancelled_at":"2024-03-14T10:00:00Z"}`,
			"cancelled_at: occurs more than once"},
		{"the first in the body's order", `{"id":7,"line_items":[{"sku":"A","sku":"B","quantity":1}],"note":"a","note":"b"}`,
			"line_items[0].sku: occurs more than once"},
		{"sku not UTF-8", "{\"id\":7,\"line_items\":[{\"id\":1,\"sku\":\"KEY-\xff\",\"quantity\":1}]}", "line_items[0].sku: must be valid UTF-8"},
		{"name not UTF-8", "{\"id\":7,\"shipping_address\":{\"name\":\"Ad\xc3\"},\"line_items\":[" + line + "]}", "shipping_address.name: must be valid UTF-8"},
		{"note a lone surrogate", `{"id":7,"note":"\ud800","line_items":[` + line + `]}`, "note: must be valid UTF-8"},
		{"sku a reversed pair", `{"id":7,"line_items":[{"sku":"\udc00\ud800","quantity":1}]}`, "line_items[0].sku: must be valid UTF-8"},
		{"cancelled_at not UTF-8", "{\"id\":7,\"cancelled_at\":\"2024\xff\",\"line_items\":[]}", "cancelled_at: must be valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := intake.DecodeStorefrontOrder([]byte(tt.body))
			var ve *domain.ValidationError
			if !errors.As(err, &ve) || ve.Field+": "+ve.Reason != tt.want {
				t.Fatalf("error %v, want %s", err, tt.want)
			}
			if o.ID != 7 {
				t.Errorf("refusal carries id %d, want 7", o.ID)
			}
		})
	}
	// A repeated id names no order: nothing can be recorded.
	o, err := intake.DecodeStorefrontOrder([]byte(`{"id":7,"line_items":[` + line + `],"Id":8}`))
	if err == nil || err.Error() != "invalid id: occurs more than once" || o.ID != 0 {
		t.Errorf("a repeated id: %+v, %v; want id: occurs more than once, no id", o, err)
	}

	accepted := []struct {
		name, body string
		cancelled  bool
		sku        string
	}{
		{"cancelled_at a timestamp", `{"id":7,"cancelled_at":"2024-03-14T10:00:00-04:00","line_items":[` + line + `]}`, true, "A"},
		{"cancelled_at in UTC with a fraction", `{"id":7,"cancelled_at":"2024-03-14T14:00:00.123Z","line_items":[` + line + `]}`, true, "A"},
		{"cancelled_at null", `{"id":7,"cancelled_at":null,"line_items":[` + line + `]}`, false, "A"},
		{"an unmapped member twice", `{"id":7,"tags":"a","tags":"b","line_items":[{"sku":"A","quantity":1,"properties":[],"properties":{}}]}`, false, "A"},
		{"an unmapped member not UTF-8", "{\"id\":7,\"email\":\"\xff\xfe\",\"customer\":{\"name\":\"\xc3\"},\"line_items\":[{\"sku\":\"A\",\"title\":\"\xff\",\"quantity\":1}]}", false, "A"},
		{"an unmapped object with mapped names", `{"id":7,"billing_address":{"zip":"1","zip":"2"},"line_items":[{"sku":"A","quantity":1,"tax_lines":[{"id":1,"id":2}]}]}`, false, "A"},
		{"a surrogate pair and U+FFFD as sent", `{"id":7,"line_items":[{"sku":"\ud83d\ude00\ufffd` + "\uFFFD\xef\xbf\xbd" + `","quantity":1}]}`, false, "\U0001F600\uFFFD\uFFFD\uFFFD"},
		{"an escaped name", `{"id":7,"line_items":[{"s\u006bu":"A","quantity":1}]}`, false, "A"},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			o, err := intake.DecodeStorefrontOrder([]byte(tt.body))
			if err != nil || o.Cancelled != tt.cancelled || len(o.Lines) != 1 || o.Lines[0].SKU != tt.sku {
				t.Fatalf("%+v, %v; want cancelled %v, sku %q", o, err, tt.cancelled, tt.sku)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeStorefrontOrderNullIsAbsent(t *testing.T) {
	o, err := intake.DecodeStorefrontOrder([]byte(`{"id":7,"order_number":null,"test":null,"cancelled_at":null,"note":null,
		"shipping_address":null,"line_items":[{"id":null,"sku":null,"quantity":1,"requires_shipping":null}]}`))
	want := intake.StorefrontOrder{ID: 7, Lines: []intake.StorefrontLine{{Quantity: 1, RequiresShipping: true}}}
	if err != nil || !reflect.DeepEqual(o, want) {
		t.Fatalf("%+v, %v; want %+v", o, err, want)
	}
	o, err = intake.DecodeStorefrontOrder([]byte(`{"id":7,"test":false,"cancelled_at":null,"line_items":[{"sku":"A","quantity":1,"requires_shipping":false}],
		"email":5,"title":{"x":[1,"2",null]},"tags":null,"total_price":"10.00","customer":[true]}`))
	want = intake.StorefrontOrder{ID: 7, Lines: []intake.StorefrontLine{{SKU: "A", Quantity: 1}}}
	if err != nil || !reflect.DeepEqual(o, want) {
		t.Fatalf("members not mapped must be ignored whatever their type: %+v, %v; want %+v", o, err, want)
	}
}

// BenchmarkDecodeStorefrontOrder decodes the storefront sample (4.9 KB).
func BenchmarkDecodeStorefrontOrder(b *testing.B) {
	body := readSample(b, "orders-create.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := intake.DecodeStorefrontOrder(body); err != nil {
			b.Fatal(err)
		}
	}
}
