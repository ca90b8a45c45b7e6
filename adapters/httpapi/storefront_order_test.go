package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The contract's types (api/openapi.yaml, docs/storefront-intake.md): a
// mapped member of the wrong JSON type is refused, naming it, and null
// counts as absent; nothing is guessed.
func TestDecodeStorefrontOrderTypes(t *testing.T) {
	const lines = `"line_items":[{"id":1,"sku":"A","quantity":1}]`
	tests := []struct {
		name, body, wantField, wantReason string
		wantNumber                        *int64 // the order number the refusal carries
	}{
		{"test a string", `{"id":7,"test":"true",` + lines + `}`, "test", "must be a JSON boolean", nil},
		{"test a number", `{"id":7,"test":1,` + lines + `}`, "test", "must be a JSON boolean", nil},
		{"cancelled_at false", `{"id":7,"cancelled_at":false,` + lines + `}`, "cancelled_at", "must be a JSON string", nil},
		{"cancelled_at a number", `{"id":7,"cancelled_at":1710410400,` + lines + `}`, "cancelled_at", "must be a JSON string", nil},
		{"requires_shipping a string", `{"id":7,"line_items":[{"id":1,"sku":"A","quantity":1,"requires_shipping":"false"}]}`,
			"line_items.requires_shipping", "must be a JSON boolean", nil},
		{"order_number a string", `{"id":7,"order_number":"abc",` + lines + `}`, "order_number", "must be a 64-bit integer", nil},
		{"order_number fractional", `{"id":7,"order_number":1042.5,` + lines + `}`, "order_number", "must be a 64-bit integer", nil},
		{"order_number beyond int64", `{"id":7,"order_number":9223372036854775808,` + lines + `}`, "order_number", "must be a 64-bit integer", nil},
		{"line id a string", `{"id":7,"order_number":1042,"line_items":[{"id":"14658123456011","sku":"A","quantity":1}]}`,
			"line_items.id", "must be a 64-bit integer", ptr(int64(1042))},
		{"line id fractional", `{"id":7,"line_items":[{"id":1.5,"sku":"A","quantity":1}]}`, "line_items.id", "must be a 64-bit integer", nil},
		{"shipping_address a string", `{"id":7,"shipping_address":"Berlin",` + lines + `}`, "shipping_address", "must be a JSON object", nil},
		{"shipping_address an array", `{"id":7,"shipping_address":[],` + lines + `}`, "shipping_address", "must be a JSON object", nil},
		{"address member a number", `{"id":7,"shipping_address":{"zip":10623},` + lines + `}`, "shipping_address.zip", "must be a JSON string", nil},
		{"address member a boolean", `{"id":7,"shipping_address":{"province_code":false},` + lines + `}`,
			"shipping_address.province_code", "must be a JSON string", nil},
		{"note an object", `{"id":7,"note":{},` + lines + `}`, "note", "must be a JSON string", nil},
		{"sku a number", `{"id":7,"line_items":[{"sku":5,"quantity":1}]}`, "line_items.sku", "must be a JSON string", nil},
		{"line_items an object", `{"id":7,"line_items":{"sku":"A"}}`, "line_items", "must be a JSON array", nil},
		{"a line not an object", `{"id":7,"line_items":[1]}`, "line_items", "must be a JSON object", nil},
		// The id is read wherever it stands, so that the attempt is recorded.
		{"id after the wrong member", `{"test":"yes","order_number":12,` + lines + `,"id":7}`, "test", "must be a JSON boolean", ptr(int64(12))},
		// The first wrong member in the body's order is named.
		{"first of two", `{"id":7,"note":5,"test":"x",` + lines + `}`, "note", "must be a JSON string", nil},
		{"first of two, other order", `{"id":7,"test":"x","note":5,` + lines + `}`, "test", "must be a JSON boolean", nil},
		// Member names match case-insensitively, as encoding/json matches them.
		{"another case", `{"ID":7,"Test":"true",` + lines + `}`, "test", "must be a JSON boolean", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := httpapi.DecodeStorefrontOrder([]byte(tt.body))
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
		`{"id":7,"test":"x",`:                 "body: is not valid JSON",
		`[{"id":7,"test":"x"}]`:               "body: must be a JSON object",
		`{"id":"7","test":"x",` + lines:       "body: is not valid JSON",
		`{"id":"7","test":"x",` + lines + `}`: "id: must be a positive integer",
		`{"test":"x",` + lines + `}`:          "id: must be a positive integer",
	} {
		_, err := httpapi.DecodeStorefrontOrder([]byte(body))
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
			o, err := httpapi.DecodeStorefrontOrder([]byte(tt.body))
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
	o, err := httpapi.DecodeStorefrontOrder([]byte(`{"id":7,"line_items":[` + line + `],"Id":8}`))
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
			o, err := httpapi.DecodeStorefrontOrder([]byte(tt.body))
			if err != nil || o.Cancelled != tt.cancelled || len(o.Lines) != 1 || o.Lines[0].SKU != tt.sku {
				t.Fatalf("%+v, %v; want cancelled %v, sku %q", o, err, tt.cancelled, tt.sku)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeStorefrontOrderNullIsAbsent(t *testing.T) {
	o, err := httpapi.DecodeStorefrontOrder([]byte(`{"id":7,"order_number":null,"test":null,"cancelled_at":null,"note":null,
		"shipping_address":null,"line_items":[{"id":null,"sku":null,"quantity":1,"requires_shipping":null}]}`))
	want := intake.StorefrontOrder{ID: 7, Lines: []intake.StorefrontLine{{Quantity: 1, RequiresShipping: true}}}
	if err != nil || !reflect.DeepEqual(o, want) {
		t.Fatalf("%+v, %v; want %+v", o, err, want)
	}
	o, err = httpapi.DecodeStorefrontOrder([]byte(`{"id":7,"test":false,"cancelled_at":null,"line_items":[{"sku":"A","quantity":1,"requires_shipping":false}],
		"email":5,"title":{"x":[1,"2",null]},"tags":null,"total_price":"10.00","customer":[true]}`))
	want = intake.StorefrontOrder{ID: 7, Lines: []intake.StorefrontLine{{SKU: "A", Quantity: 1}}}
	if err != nil || !reflect.DeepEqual(o, want) {
		t.Fatalf("members not mapped must be ignored whatever their type: %+v, %v; want %+v", o, err, want)
	}
}

// contractOrder is the contract's reading of a body, made independently of
// DecodeStorefrontOrder: from encoding/json's token stream, member by
// member, as docs/storefront-intake.md states the rules.
func contractOrder(t testing.TB, body []byte) (order intake.StorefrontOrder, refusal string) {
	if !json.Valid(body) {
		return order, "body: is not valid JSON"
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	root := parseNode(t, dec, body)
	switch root.kind {
	case 'z': // null decodes as an object without members
		root = jsonNode{kind: '{'}
	case '{':
	default:
		return order, "body: must be a JSON object"
	}
	if root.count("id") > 1 {
		return order, "id: occurs more than once"
	}
	m := root.mapped("id", "order_number", "test", "cancelled_at", "note", "shipping_address", "line_items")
	id, isInt := m["id"].integer()
	if !isInt || id <= 0 {
		return order, "id: must be a positive integer"
	}
	order.ID = id
	if n, isInt := m["order_number"].integer(); isInt && root.count("order_number") == 1 {
		order.OrderNumber = &n
	}
	if refusal = contractTypes(root); refusal != "" {
		return order, refusal
	}
	if refusal = contractMembers(root); refusal != "" {
		if strings.HasPrefix(refusal, "order_number:") {
			order.OrderNumber = nil
		}
		return order, refusal
	}
	items := m["line_items"]
	if items.kind == 0 || items.kind == 'z' {
		return order, "line_items: is required"
	}
	if c := m["cancelled_at"]; c.kind == '"' {
		if _, err := time.Parse(time.RFC3339, c.str); err != nil {
			return order, "cancelled_at: must be null or an RFC 3339 timestamp"
		}
		order.Cancelled = true
	}
	order.Test = m["test"].kind == 't'
	order.Note = m["note"].str
	texts := [][2]string{{"note", order.Note}}
	if a := m["shipping_address"]; a.kind == '{' {
		f := a.mapped(addressMembers...)
		order.ShippingAddress = &shipping.Address{Name: f["name"].str, Company: f["company"].str, Address1: f["address1"].str,
			Address2: f["address2"].str, City: f["city"].str, State: f["province_code"].str, Zip: f["zip"].str,
			Country: f["country_code"].str, Phone: f["phone"].str}
		all := ""
		for _, name := range addressMembers {
			all += f[name].str
		}
		texts = append(texts, [2]string{"shipping_address", all})
	}
	order.Lines = []intake.StorefrontLine{}
	for i, item := range items.elems {
		f := item.mapped("id", "sku", "quantity", "requires_shipping")
		q, isInt := f["quantity"].integer()
		if !isInt {
			return order, fmt.Sprintf("line_items[%d].quantity: must be an integer", i)
		}
		lineID, _ := f["id"].integer()
		order.Lines = append(order.Lines, intake.StorefrontLine{ID: lineID, SKU: f["sku"].str, Quantity: q, RequiresShipping: f["requires_shipping"].kind != 'f'})
		texts = append(texts, [2]string{fmt.Sprintf("line_items[%d].sku", i), f["sku"].str})
	}
	for _, s := range texts {
		if strings.ContainsRune(s[1], 0) {
			return order, s[0] + ": must not contain NUL characters"
		}
	}
	// Quantities are 1 … 1,000,000,000 on every line, and summed per SKU
	// (trimmed) over the lines to ship.
	for i, l := range order.Lines {
		if l.Quantity < 1 || l.Quantity > 1_000_000_000 {
			return order, fmt.Sprintf("line_items[%d].quantity: must be an integer from 1 to 1000000000", i)
		}
	}
	sums := map[string]int64{}
	for _, l := range order.Lines {
		if sku := strings.TrimSpace(l.SKU); l.RequiresShipping && sku != "" {
			if sums[sku] += l.Quantity; sums[sku] > 1_000_000_000 {
				return order, fmt.Sprintf("line_items: the quantities of %q add up to more than 1000000000", sku)
			}
		}
	}
	return order, ""
}

// contractMembers returns the first mapped member, in the body's order,
// that occurs a second time in its object or is a string the token stream
// had to repair (bytes that are not UTF-8, a lone surrogate: U+FFFD stands
// in the decoded string where the body had none).
func contractMembers(root jsonNode) string {
	var first string
	var walk func(n jsonNode, prefix string, names []string, strs []string)
	walk = func(n jsonNode, prefix string, names []string, strs []string) {
		seen := map[string]bool{}
		for _, mb := range n.members {
			for _, name := range names {
				if first != "" || !strings.EqualFold(mb.name, name) {
					continue
				}
				if seen[name] {
					first = prefix + name + ": occurs more than once"
					return
				}
				seen[name] = true
				switch {
				case name == "shipping_address" && prefix == "" && mb.value.kind == '{':
					walk(mb.value, "shipping_address.", addressMembers, addressMembers)
				case name == "line_items" && prefix == "":
					for i, item := range mb.value.elems {
						if item.kind == '{' {
							walk(item, fmt.Sprintf("line_items[%d].", i), []string{"id", "sku", "quantity", "requires_shipping"}, []string{"sku"})
						}
					}
				case slices.Contains(strs, name) && mb.value.kind == '"' && mb.value.repaired():
					first = prefix + name + ": must be valid UTF-8"
				}
			}
		}
	}
	walk(root, "", []string{"id", "order_number", "test", "cancelled_at", "note", "shipping_address", "line_items"}, []string{"cancelled_at", "note"})
	return first
}

var addressMembers = []string{"name", "company", "address1", "address2", "city", "province_code", "zip", "country_code", "phone"}

// contractTypes returns the first mapped member, in the body's order, of a
// JSON type the contract does not allow it (null is allowed everywhere).
func contractTypes(root jsonNode) string {
	check := func(path string, v jsonNode, allowed byte, kind string) string {
		_, isInt := v.integer()
		switch {
		case v.kind == 'z', allowed == '0' && isInt, allowed != '0' && v.kind == allowed, allowed == 't' && v.kind == 'f':
			return ""
		}
		return path + ": must be " + kind
	}
	const str, boolean, integer, object = "a JSON string", "a JSON boolean", "a 64-bit integer", "a JSON object"
	for _, mb := range root.members {
		var bad string
		switch {
		case strings.EqualFold(mb.name, "order_number"):
			bad = check("order_number", mb.value, '0', integer)
		case strings.EqualFold(mb.name, "test"):
			bad = check("test", mb.value, 't', boolean)
		case strings.EqualFold(mb.name, "cancelled_at"):
			bad = check("cancelled_at", mb.value, '"', str)
		case strings.EqualFold(mb.name, "note"):
			bad = check("note", mb.value, '"', str)
		case strings.EqualFold(mb.name, "shipping_address"):
			if bad = check("shipping_address", mb.value, '{', object); bad == "" {
				for _, f := range mb.value.members {
					for _, a := range addressMembers {
						if bad == "" && strings.EqualFold(f.name, a) {
							bad = check("shipping_address."+a, f.value, '"', str)
						}
					}
				}
			}
		case strings.EqualFold(mb.name, "line_items"):
			bad = check("line_items", mb.value, '[', "a JSON array")
			for _, item := range mb.value.elems {
				if bad == "" {
					bad = check("line_items", item, '{', object)
				}
				for _, f := range item.members {
					switch {
					case bad != "":
					case strings.EqualFold(f.name, "id"):
						bad = check("line_items.id", f.value, '0', integer)
					case strings.EqualFold(f.name, "sku"):
						bad = check("line_items.sku", f.value, '"', str)
					case strings.EqualFold(f.name, "requires_shipping"):
						bad = check("line_items.requires_shipping", f.value, 't', boolean)
					}
				}
			}
		}
		if bad != "" {
			return bad
		}
	}
	return ""
}

// jsonNode is a JSON value with its object members in order: kind is
// '{', '[', '"', '0' (a number), 't', 'f' or 'z' (null); 0 when absent.
type jsonNode struct {
	kind    byte
	members []struct {
		name  string
		value jsonNode
	}
	elems []jsonNode
	str   string
	raw   []byte // a string's text as the body has it, quotes included
	num   json.Number
}

func parseNode(t testing.TB, dec *json.Decoder, body []byte) jsonNode {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		t.Fatalf("token of valid JSON: %v", err)
	}
	switch v := tok.(type) {
	case json.Delim:
		n := jsonNode{kind: byte(v)}
		for dec.More() {
			if v == '[' {
				n.elems = append(n.elems, parseNode(t, dec, body))
				continue
			}
			name, _ := dec.Token()
			n.members = append(n.members, struct {
				name  string
				value jsonNode
			}{name.(string), parseNode(t, dec, body)})
		}
		_, _ = dec.Token()
		return n
	case string:
		return jsonNode{kind: '"', str: v, raw: body[start:dec.InputOffset()]}
	case json.Number:
		return jsonNode{kind: '0', num: v}
	case bool:
		if v {
			return jsonNode{kind: 't'}
		}
		return jsonNode{kind: 'f'}
	}
	return jsonNode{kind: 'z'}
}

// mapped returns the members of an object by the names given, matched
// case-insensitively (the last of a name given twice).
func (n jsonNode) mapped(names ...string) map[string]jsonNode {
	out := map[string]jsonNode{}
	for _, mb := range n.members {
		for _, name := range names {
			if strings.EqualFold(mb.name, name) {
				out[name] = mb.value
			}
		}
	}
	return out
}

// count is how many members of an object have name, matched
// case-insensitively.
func (n jsonNode) count(name string) int {
	c := 0
	for _, mb := range n.members {
		if strings.EqualFold(mb.name, name) {
			c++
		}
	}
	return c
}

// repaired tells whether the token stream replaced something of a string
// by U+FFFD: the decoded string has more of it than the body wrote, as the
// character itself or as the escape \ufffd.
func (n jsonNode) repaired() bool {
	written := strings.Count(strings.ToValidUTF8(string(n.raw), ""), "\uFFFD")
	for i := 0; i < len(n.raw); i++ {
		if n.raw[i] != '\\' {
			continue
		}
		if n.raw[i+1] == 'u' && strings.EqualFold(string(n.raw[i+2:i+6]), "fffd") {
			written++
		}
		i++
	}
	return strings.Count(n.str, "\uFFFD") > written
}

// integer reads a JSON number as a 64-bit integer from its digits.
func (n jsonNode) integer() (int64, bool) {
	if n.kind != '0' {
		return 0, false
	}
	v, err := strconv.ParseInt(n.num.String(), 10, 64)
	return v, err == nil
}

// checkAsContract fails unless DecodeStorefrontOrder answers body as the
// contract reads it: the same order, or the same refusal carrying the
// same id and order number.
func checkAsContract(t *testing.T, body []byte) {
	t.Helper()
	want, refusal := contractOrder(t, body)
	got, err := httpapi.DecodeStorefrontOrder(body)
	var ve *domain.ValidationError
	if err != nil && !errors.As(err, &ve) {
		t.Fatalf("%q: refusal %v is not a validation error", body, err)
	}
	switch {
	case refusal == "" && err != nil:
		t.Fatalf("%q:\nrefused: %v\ncontract: %+v", body, err, want)
	case refusal == "" && !reflect.DeepEqual(got, want):
		t.Fatalf("%q:\ndecoded  %+v\ncontract %+v", body, got, want)
	case refusal != "" && err == nil:
		t.Fatalf("%q: accepted %+v, contract refuses: %s", body, got, refusal)
	case refusal != "":
		if ve.Field+": "+ve.Reason != refusal || got.ID != want.ID || !reflect.DeepEqual(got.OrderNumber, want.OrderNumber) {
			t.Fatalf("%q:\nrefused %s: %s (id %d, number %v)\ncontract %s (id %d, number %v)", body, ve.Field, ve.Reason,
				got.ID, got.OrderNumber, refusal, want.ID, want.OrderNumber)
		}
	}
}

// contractSeeds are bodies at the edges of the contract and of JSON.
func contractSeeds(t testing.TB) [][]byte {
	seeds := [][]byte{readSample(t, "orders-create.json"), readSample(t, "orders-create-pickup.json")}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, s := range []string{
		``, ` `, `null`, ` null `, `nul`, `[]`, `"x"`, `1`, `true`, `{}`, `{ }`, `{"id":1}x`, `{"id":1} `, `{,}`, `{"a":1,}`,
		`{"a" 1}`, `{"a":}`, `{"id":[1,]}`, `{"id":1`, `{"id":"1`, `{'id':1}`, `{"id":01}`, `{"id":-}`, `{"id":1.}`,
		`{"id":1e}`, `{"id":-0}`, `{"id":1E+2}`, `{"id":.5}`, `{"id":truex}`, `{"id":tru}`, "{\"id\":1,\n\t\r \"note\" : \"n\" }",
		`{"ID":1,"Line_Items":[{"SKU":"a","QUANTITY":2}],"NOTE":"x","Shipping_Address":{"ZIP":"1","City":"B"}}`,
		`{"id":1,"line_items":[{"ſku":"x","quantity":1}]}`, `{"id":1,"line_items":[{"s\u212Au":"x","quantity":1}]}`,
		`{"id":1,"line_items":[null]}`, `{"id":1,"line_items":[]}`, `{"id":1,"line_items":null}`,
		`{"id":1,"note":1,"line_items":"x"}`, `{"id":1,"line_items":[1,{"sku":2}]}`, `{"id":1,"line_items":{"sku":"a"}}`,
		`{"note":1,"id":}`, `{"id":1,"note":{"a":[1,{"b":null}]},"line_items":[]}`, `{"id":1,"note":[],"line_items":[]}`,
		`{"id":1,"shipping_address":{"zip":10623,"city":5}}`, `{"id":1,"shipping_address":{"zip":null,"city":"B"},"line_items":[]}`,
		`{"id":1,"shipping_address":"x","line_items":[]}`, `{"id":1,"shipping_address":[],"line_items":[]}`,
		`{"id":1,"note":"\u00e9\n\"\\\/\b\f\r\t","line_items":[]}`, `{"id":1,"note":"\ud800","line_items":[]}`,
		`{"id":1,"note":"\ud83d\ude00","line_items":[]}`, `{"id":1,"note":"\uZZZZ"}`, `{"id":1,"note":"\x"}`, `{"id":1,"note":"\u12"}`,
		"{\"id\":1,\"note\":\"\xff\xfe\",\"line_items\":[]}", "{\"id\":1,\"note\":\"a\x01\"}", "{\"id\":1,\"not\xffe\":1}",
		"{\"id\":1,\"note\":\"\xe2\x82\",\"line_items\":[]}", "\xef\xbb\xbf{\"id\":1}",
		`{"id":1,"x":` + deep(9999) + `}`, `{"id":1,"x":` + deep(10000) + `}`, deep(10000), deep(10001),
		`{"id":9223372036854775808,"line_items":[{"quantity":1e400,"id":-9223372036854775808}]}`,
		`{"id":9007199254740993,"order_number":9007199254740995,"line_items":[{"id":9223372036854775807,"sku":"A","quantity":2}]}`,
		`{"id":7,"test":"true","line_items":[]}`, `{"id":7,"test":true,"cancelled_at":false,"line_items":[]}`,
		`{"id":7,"cancelled_at":"","line_items":[{"sku":"A","quantity":1,"requires_shipping":"false"}]}`,
		`{"id":7,"order_number":"abc","line_items":[{"id":"1","sku":"A","quantity":1}]}`,
		`{"order_number":5,"test":"x","id":7,"line_items":[{"id":null,"sku":"\u0000","quantity":1,"requires_shipping":null}]}`,
		`{"id":7,"test":null,"cancelled_at":null,"order_number":null,"shipping_address":null,"line_items":[{"quantity":-3}]}`,
		`{"id":7,"shipping_address":{"name":"\u0000"},"note":"n\u0000","line_items":[{"quantity":"1"}]}`,
		`{"id":7,"cancelled_at":"false","line_items":[]}`, `{"id":7,"cancelled_at":"null","line_items":[]}`,
		`{"id":7,"cancelled_at":"2024-03-14T10:00:00-04:00","line_items":[]}`, `{"id":7,"cancelled_at":"2024-03-14T10:00:00","line_items":[]}`,
		`{"id":7,"line_items":[{"sku":"A","quantity":1,"requires_shipping":false}],"line_items":[{"sku":"B","quantity":1}]}`,
		`{"id":7,"line_items":[{"sku":"A","quantity":1,"SKU":"B"}]}`, `{"ID":7,"id":7,"line_items":[]}`,
		`{"id":7,"shipping_address":{"zip":"1"},"Shipping_Address":{"zip":"2"},"line_items":[]}`,
		`{"id":7,"shipping_address":{"zip":"1","ZIP":"2"},"note":"a","note":"b","line_items":[]}`,
		"{\"id\":7,\"line_items\":[{\"sku\":\"A\xff\",\"quantity\":1}]}", "{\"id\":7,\"shipping_address\":{\"name\":\"\xc3\"},\"line_items\":[]}",
		"{\"id\":7,\"email\":\"\xff\",\"line_items\":[{\"sku\":\"A\",\"name\":\"\xff\",\"quantity\":1}]}",
		`{"id":7,"line_items":[{"sku":"\ud83d\ude00\ud800x\udc00","quantity":1}]}`, `{"id":7,"note":"\ufffd\uFFFD","line_items":[]}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

func TestDecodeStorefrontOrderAsContractOnSeeds(t *testing.T) {
	for _, body := range contractSeeds(t) {
		checkAsContract(t, body)
	}
}

// TestDecodeStorefrontOrderAsContractOnMutations compares the decoder with
// the contract's reading on thousands of bodies made from the seeds by
// random edits that break and bend them where JSON and the contract are
// touchy (a fixed random seed: the same bodies every run).
func TestDecodeStorefrontOrderAsContractOnMutations(t *testing.T) {
	seeds := contractSeeds(t)
	rng := rand.New(rand.NewPCG(13, 2026))
	pieces := []string{"{", "}", "[", "]", `"`, ",", ":", `\`, `\u`, " ", "0", "-", "1e5", ".", "null", "true", "false", "x", "\x00", "\xff",
		`"1"`, `{}`, `[]`, "9223372036854775808", `"id"`, `"ID"`, `"sku"`, `"quantity"`, `"line_items"`, `"note"`, `"shipping_address"`,
		`"zip"`, `"test"`, `"cancelled_at"`, `"order_number"`, `"requires_shipping"`, `[{"sku":"Z","quantity":3}]`}
	const cases = 10000
	for n := range cases {
		body := []byte(string(seeds[n%len(seeds)]))
		for range 1 + rng.IntN(3) {
			if len(body) == 0 {
				body = append(body, pieces[rng.IntN(len(pieces))]...)
				continue
			}
			at := rng.IntN(len(body))
			switch rng.IntN(5) {
			case 0: // delete a byte
				body = append(body[:at], body[at+1:]...)
			case 1: // insert a piece
				p := pieces[rng.IntN(len(pieces))]
				body = append(body[:at], append([]byte(p), body[at:]...)...)
			case 2: // repeat a stretch, as a repeated member does
				end := min(len(body), at+1+rng.IntN(200))
				body = append(body[:end], append(bytes.Clone(body[at:end]), body[end:]...)...)
			case 3: // change the case of a letter
				c := body[at]
				if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
					body[at] ^= 0x20
				}
			case 4: // cut the end
				body = body[:at]
			}
		}
		checkAsContract(t, body)
	}
}

// FuzzDecodeStorefrontOrderAsContract: for any body, DecodeStorefrontOrder
// answers as the contract reads it (go test -fuzz
// FuzzDecodeStorefrontOrderAsContract ./adapters/httpapi/).
func FuzzDecodeStorefrontOrderAsContract(f *testing.F) {
	for _, s := range contractSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAsContract(t, body)
	})
}
