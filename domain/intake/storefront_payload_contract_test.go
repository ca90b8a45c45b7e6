package intake_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

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
	type typed struct {
		name    string
		allowed byte // the kind allowed besides null: '0' an integer, 't' a boolean
		kind    string
	}
	top := []typed{{"order_number", '0', integer}, {"test", 't', boolean}, {"cancelled_at", '"', str}, {"note", '"', str},
		{"shipping_address", '{', object}, {"line_items", '[', "a JSON array"}}
	line := []typed{{"id", '0', integer}, {"sku", '"', str}, {"requires_shipping", 't', boolean}}
	address := make([]typed, len(addressMembers))
	for i, a := range addressMembers {
		address[i] = typed{a, '"', str}
	}
	// member checks the member name, of value v, when members types it.
	member := func(prefix, name string, v jsonNode, members []typed) string {
		for _, m := range members {
			if strings.EqualFold(name, m.name) {
				return check(prefix+m.name, v, m.allowed, m.kind)
			}
		}
		return ""
	}
	for _, mb := range root.members {
		bad := member("", mb.name, mb.value, top)
		switch {
		case bad != "":
		case strings.EqualFold(mb.name, "shipping_address"):
			for _, f := range mb.value.members {
				if bad == "" {
					bad = member("shipping_address.", f.name, f.value, address)
				}
			}
		case strings.EqualFold(mb.name, "line_items"):
			for _, item := range mb.value.elems {
				if bad == "" {
					bad = check("line_items", item, '{', object)
				}
				for _, f := range item.members {
					if bad == "" {
						bad = member("line_items.", f.name, f.value, line)
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

// checkAsContract fails unless DecodeStorefrontOrder answers body as the
// contract reads it: the same order, or the same refusal carrying the
// same id and order number.
func checkAsContract(t *testing.T, body []byte) {
	t.Helper()
	want, refusal := contractOrder(t, body)
	got, err := intake.DecodeStorefrontOrder(body)
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
		// The order number a refusal carries is one read unambiguously: not one given twice or of
		// the wrong type, also when the refusal is about another member.
		`{"id":7,"note":"a","note":"b","order_number":1,"order_number":2,"line_items":[]}`,
		`{"id":7,"note":[],"order_number":"x","line_items":[]}`,
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
// FuzzDecodeStorefrontOrderAsContract ./domain/intake/).
func FuzzDecodeStorefrontOrderAsContract(f *testing.F) {
	for _, s := range contractSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAsContract(t, body)
	})
}
