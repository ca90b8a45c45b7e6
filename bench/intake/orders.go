package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
)

// order writes a storefront order with its own id and -lines distinct
// random SKUs: a copy of the template, or a trimmed order of the sample's
// shape (about 1.5 KB) without one.
func (g *generator) order(rng *rand.Rand, id int64) []byte {
	picked := make([]int, 0, g.o.lines)
	for len(picked) < g.o.lines {
		n := 1 + rng.IntN(g.o.skus)
		if !slices.Contains(picked, n) {
			picked = append(picked, n)
		}
	}
	if g.tmpl != nil {
		return g.tmpl.order(id, picked, g.o.skuFormat, rng)
	}
	var b bytes.Buffer
	b.Grow(1200 + 600*g.o.lines)
	ids, num := strconv.FormatInt(id, 10), strconv.FormatInt(1000+id%1_000_000, 10)
	b.WriteString(`{"id":` + ids + `,"admin_graphql_api_id":"gid://shopify/Order/` + ids + `","name":"#` + num +
		`","order_number":` + num + `,"email":"zoe.mueller@example.de","created_at":"2025-03-14T10:21:07+01:00",` +
		`"cancelled_at":null,"test":false,"currency":"EUR","total_price":"159.30","financial_status":"paid",` +
		`"note":"Bitte beim Nachbarn abgeben 🙏","tags":"","line_items":[`)
	for i, n := range picked {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"product_id":8930509029688,"variant_id":46734784364693,"title":"Merino Crew Sock",`+
			`"name":"Merino Crew Sock - Charcoal / 43-46","sku":"`+g.o.skuFormat+`","vendor":"Example Knitwear","quantity":%d,`+
			`"requires_shipping":true,"gift_card":false,"taxable":true,"grams":350,"price":"49.95",`+
			`"tax_lines":[{"title":"DE MwSt","rate":0.19,"price":"7.98"}],"properties":[]}`,
			id*10+int64(i), n, 1+rng.IntN(3))
	}
	b.WriteString(`],"shipping_address":{"first_name":"Zoë","last_name":"Müller","name":"Zoë Müller","company":null,` +
		`"address1":"Straße des 17. Juni 135","address2":null,"city":"Berlin","province":null,"province_code":null,` +
		`"zip":"10623","country":"Germany","country_code":"DE","phone":"+49 30 1234567"},` +
		`"customer":{"id":7421903112345,"email":"zoe.mueller@example.de","first_name":"Zoë","last_name":"Müller"}}`)
	return b.Bytes()
}

// orderTemplate is a storefront order with placeholders where each order
// differs: its id, its number, and each line item's id, SKU and quantity.
type orderTemplate struct {
	parts []string   // the text between placeholders
	slots []slotName // the placeholder after each part
}

// slotName is a placeholder: field "id" or "number" of the order, or
// "id", "sku" or "quantity" of line item line (line ≥ 0).
type slotName struct {
	line  int
	field string
}

// loadTemplate reads a sample order and makes its template of lines line
// items, the sample's own cycled.
func loadTemplate(path string, lines int) (*orderTemplate, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the payload sample: %w", err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sample, _ := doc["line_items"].([]any)
	if len(sample) == 0 {
		return nil, fmt.Errorf("%s has no line_items", path)
	}
	// Placeholders are strings starting with U+0001, which json.Marshal
	// writes as the six characters \u0001: nothing in a real order looks
	// like that.
	const mark = "\x01"
	doc["id"] = mark + "id"
	doc["order_number"] = mark + "number"
	items := make([]any, lines)
	for i := range items {
		item := map[string]any{}
		for k, v := range sample[i%len(sample)].(map[string]any) {
			item[k] = v
		}
		for _, k := range []string{"id", "sku", "quantity"} {
			item[k] = fmt.Sprintf("%sline:%d:%s", mark, i, k)
		}
		items[i] = item
	}
	doc["line_items"] = items
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	t := &orderTemplate{}
	rest, open := string(b), `"\u0001`
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			t.parts = append(t.parts, rest)
			return t, nil
		}
		j := strings.IndexByte(rest[i+len(open):], '"')
		name := slotName{line: -1, field: rest[i+len(open) : i+len(open)+j]}
		if _, err := fmt.Sscanf(name.field, "line:%d:%s", &name.line, &name.field); err != nil {
			name.line = -1
		}
		t.parts = append(t.parts, rest[:i])
		t.slots = append(t.slots, name)
		rest = rest[i+len(open)+j+1:]
	}
}

// order fills the template.
func (t *orderTemplate) order(id int64, skus []int, skuFormat string, rng *rand.Rand) []byte {
	var b bytes.Buffer
	for i, part := range t.parts {
		b.WriteString(part)
		if i == len(t.slots) {
			break
		}
		switch slot := t.slots[i]; {
		case slot.line < 0 && slot.field == "id":
			b.WriteString(strconv.FormatInt(id, 10))
		case slot.line < 0 && slot.field == "number":
			b.WriteString(strconv.FormatInt(1000+id%1_000_000, 10))
		case slot.field == "id":
			b.WriteString(strconv.FormatInt(id*10+int64(slot.line), 10))
		case slot.field == "sku":
			b.WriteString(strconv.Quote(fmt.Sprintf(skuFormat, skus[slot.line])))
		case slot.field == "quantity":
			b.WriteString(strconv.Itoa(1 + rng.IntN(3)))
		}
	}
	return b.Bytes()
}

// BenchKey is the sandbox API key of the benchmark's fixture.
const BenchKey = "fk_test_BenchIntake0123456789abcdefghijklmnopqrstuv"

// printFixture writes the fixture of the benchmark: organization
// org_bench with warehouse wh_bench, products prod_bench_1..N with SKUs
// -sku-format of 1..N, and the API key BenchKey.
func printFixture(w io.Writer, o options) error {
	products := make([]map[string]any, o.skus)
	for i := range products {
		products[i] = map[string]any{"id": fmt.Sprintf("prod_bench_%d", i+1), "organizationId": "org_bench",
			"sku": fmt.Sprintf(o.skuFormat, i+1), "name": "Bench product"}
	}
	doc := map[string]any{
		"organizations": []any{map[string]any{"id": "org_bench", "name": "Bench", "defaultWarehouseId": "wh_bench"}},
		"warehouses": []any{map[string]any{
			"id": "wh_bench", "name": "Bench DC", "description": nil, "active": true, "tags": []string{}, "organizations": []string{"org_bench"},
			"address": map[string]any{"name": "Bench DC", "line1": "1 Dock St", "line2": "", "district": "", "city": "Newark",
				"state": "NJ", "countryCode": "US", "postalCode": "07102"},
			"contact": map[string]any{"name": "Ops", "email": "ops@example.com", "phoneNumber": "+1 555 0100", "fax": ""},
		}},
		"products": products,
		"apiKeys": []any{map[string]any{"id": "key_bench", "organizationId": "org_bench", "key": BenchKey,
			"scopes": []string{"shipments", "inventory"}, "revoked": false}},
	}
	return json.NewEncoder(w).Encode(doc)
}
