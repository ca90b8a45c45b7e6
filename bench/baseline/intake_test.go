package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The intake's statements must be the service's, byte for byte.
func TestIntakeSQLIsTheService(t *testing.T) {
	sameAsService(t, map[string]string{"claimOrderSQL": claimOrderSQL, "acceptOrderSQL": acceptOrderSQL})
}

// serviceStatements are the service's statements by name, whole, as the
// service's own test (TestStatementTexts) holds them in its golden file,
// without the newlines at either end. (Its statements are unexported, and
// some are composed when the package starts.)
func serviceStatements(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../../adapters/postgres/testdata/statements.golden")
	if err != nil {
		t.Fatal(err)
	}
	header := regexp.MustCompile(`(?m)^-- (\S+) \((?:SELECT|INSERT|UPDATE|DELETE)\)\n`)
	text := string(raw)
	out := map[string]string{}
	heads := header.FindAllStringSubmatchIndex(text, -1)
	for i, h := range heads {
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		out[text[h[2]:h[3]]] = strings.Trim(text[h[1]:end], "\n")
	}
	return out
}

// sameAsService fails t for each of ours that is not the service's
// statement of that name, byte for byte but for newlines at either end.
func sameAsService(t *testing.T, ours map[string]string) {
	t.Helper()
	service := serviceStatements(t)
	for name, text := range ours {
		if theirs, ok := service[name]; !ok {
			t.Errorf("%s: not among the service's statements", name)
		} else if text = strings.Trim(text, "\n"); text != theirs {
			t.Errorf("%s differs from the service's:\n--- ours\n%s\n--- the service's\n%s", name, text, theirs)
		}
	}
}

func TestDecodeOrderMergesLines(t *testing.T) {
	body := []byte(`{"id": 7, "order_number": 1001, "test": true, "note": "n",
		"shipping_address": {"name": "A", "province_code": "ON", "country_code": "CA", "zip": "K1A"},
		"line_items": [
			{"id": 1, "sku": "B", "quantity": 2},
			{"id": 2, "sku": "A ", "quantity": 1, "requires_shipping": true},
			{"id": 3, "sku": "GIFT", "quantity": 5, "requires_shipping": false},
			{"id": 4, "sku": "B", "quantity": 3, "requires_shipping": null},
			{"id": 5, "sku": "A", "quantity": 4}
		]}`)
	o, skus, qty, err := decodeOrder(body)
	if err != nil {
		t.Fatal(err)
	}
	if o.ID != 7 || o.OrderNumber == nil || *o.OrderNumber != 1001 || !o.Test || o.Note != "n" ||
		o.ShippingAddress.ProvinceCode != "ON" || o.ShippingAddress.CountryCode != "CA" {
		t.Errorf("order %+v", o)
	}
	if !reflect.DeepEqual(skus, []string{"B", "A"}) || !reflect.DeepEqual(qty, []int64{5, 5}) {
		t.Errorf("lines %q %v, want [B A] [5 5]", skus, qty)
	}
	for _, bad := range []string{`{`, `[]`, `{"id": 0}`, `{"id": -1}`, `{"line_items": []}`, `{"id": "7"}`} {
		if _, _, _, err := decodeOrder([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// The sample order, of which every order of the benchmark is a copy: its
// third line does not require shipping, its second's SKU ends in a space.
func TestDecodeSampleOrder(t *testing.T) {
	body, err := os.ReadFile("../../docs/samples/orders-create.json")
	if err != nil {
		t.Fatal(err)
	}
	o, skus, qty, err := decodeOrder(body)
	if err != nil {
		t.Fatal(err)
	}
	if o.ID != 5726128734520 || o.OrderNumber == nil || *o.OrderNumber != 1042 || o.ShippingAddress.CountryCode == "" {
		t.Errorf("order %+v", o)
	}
	if !reflect.DeepEqual(skus, []string{"SOCK-MER-CH-4346", "KEY-LTH-01"}) || !reflect.DeepEqual(qty, []int64{2, 1}) {
		t.Errorf("lines %q %v", skus, qty)
	}
}
