package shipping_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestCheckAvailable(t *testing.T) {
	lines := []shipping.ShipmentLine{{ItemID: "ctn_a", SKU: "A", Quantity: 3}, {ItemID: "ctn_b", SKU: "B", Quantity: 2}}
	tests := []struct {
		name   string
		levels map[string]shipping.StockLevel
		want   []shipping.StockShortage // nil: every line is available
	}{
		{"enough of each", map[string]shipping.StockLevel{"ctn_a": {OnHand: 3}, "ctn_b": {OnHand: 10, Reserved: 8}}, nil},
		{"one short", map[string]shipping.StockLevel{"ctn_a": {OnHand: 5, Reserved: 3}, "ctn_b": {OnHand: 2}},
			[]shipping.StockShortage{{ItemID: "ctn_a", SKU: "A", Requested: 3, Available: 2}}},
		{"over-reserved and missing, both listed, never below zero", map[string]shipping.StockLevel{"ctn_a": {OnHand: 1, Reserved: 4}},
			[]shipping.StockShortage{{ItemID: "ctn_a", SKU: "A", Requested: 3, Available: 0}, {ItemID: "ctn_b", SKU: "B", Requested: 2, Available: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := shipping.CheckAvailable(lines, tt.levels)
			var short *shipping.InsufficientStockError
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.want != nil && !errors.As(err, &short):
				t.Fatalf("error %v, want *InsufficientStockError", err)
			case tt.want != nil && !reflect.DeepEqual(short.Items, tt.want):
				t.Fatalf("shortages %+v, want %+v", short.Items, tt.want)
			}
		})
	}
}
