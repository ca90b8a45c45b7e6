package main

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// The template of the sample makes valid orders of the sample's size with
// the id, number and line items asked for.
func TestOrderTemplate(t *testing.T) {
	tmpl, err := loadTemplate(filepath.Join("..", "..", "docs", "samples", "orders-create.json"), 4)
	if err != nil {
		t.Fatal(err)
	}
	b := tmpl.order(9007199254740993, []int{7, 3, 12, 1}, "BENCH-%05d", rand.New(rand.NewPCG(1, 2)))
	var o struct {
		ID          json.Number `json:"id"`
		OrderNumber json.Number `json:"order_number"`
		LineItems   []struct {
			ID       json.Number `json:"id"`
			SKU      string      `json:"sku"`
			Quantity int         `json:"quantity"`
		} `json:"line_items"`
		ShippingAddress map[string]any `json:"shipping_address"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if o.ID != "9007199254740993" || o.OrderNumber == "" || len(o.LineItems) != 4 || o.ShippingAddress == nil {
		t.Fatalf("order %+v", o)
	}
	for i, sku := range []string{"BENCH-00007", "BENCH-00003", "BENCH-00012", "BENCH-00001"} {
		if l := o.LineItems[i]; l.SKU != sku || l.Quantity < 1 || l.Quantity > 3 || l.ID == "" {
			t.Errorf("line %d: %+v, want sku %s", i, l, sku)
		}
	}
	if len(b) < 4000 || len(b) > 8000 {
		t.Errorf("%d bytes, want the sample's size", len(b))
	}
}
