package intake_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The intake's rules on an order, each once: the ID, NUL characters, the
// quantity bounds and the sums per SKU, in this order.
func TestStorefrontOrderCheck(t *testing.T) {
	line := func(id int64, sku string, q int64, ship bool) intake.StorefrontLine {
		return intake.StorefrontLine{ID: id, SKU: sku, Quantity: q, RequiresShipping: ship}
	}
	order := func(id int64, lines ...intake.StorefrontLine) intake.StorefrontOrder {
		return intake.StorefrontOrder{ID: id, ShippingAddress: &shipping.Address{Name: "Ada"}, Lines: lines}
	}
	withNote := func(o intake.StorefrontOrder, note string) intake.StorefrontOrder { o.Note = note; return o }
	withName := func(o intake.StorefrontOrder, name string) intake.StorefrontOrder {
		o.ShippingAddress = &shipping.Address{Name: name}
		return o
	}
	tests := []struct {
		name  string
		order intake.StorefrontOrder
		want  string // field: reason; "" when accepted
	}{
		{"valid", order(1, line(1, "A", 1, true)), ""},
		{"no lines", order(1), ""},
		{"zero id", order(0, line(1, "A", 1, true)), "id: must be a positive integer"},
		{"negative id before NUL", withNote(order(-1), "\x00"), "id: must be a positive integer"},
		{"NUL in the note", withNote(order(1, line(1, "A", 0, true)), "a\x00"), "note: must not contain NUL characters"},
		{"NUL in the address", withName(order(1), "A\x00"), "shipping_address: must not contain NUL characters"},
		{"NUL in a sku before a quantity", order(1, line(1, "A", 0, true), line(2, "B\x00", 1, true)), "line_items[1].sku: must not contain NUL characters"},
		{"zero quantity", order(1, line(1, "A", 0, true)), "line_items[0].quantity: must be an integer from 1 to 1000000000"},
		{"beyond the bound on a line not to ship", order(1, line(1, "A", 1, true), line(2, "G", 1<<62, false)),
			"line_items[1].quantity: must be an integer from 1 to 1000000000"},
		{"the bound", order(1, line(1, "A", shipping.MaxLineQuantity, true)), ""},
		{"a sum beyond the bound", order(1, line(1, "A", 600_000_000, true), line(2, " A ", 400_000_001, true)),
			`line_items: the quantities of "A" add up to more than 1000000000`},
		{"a sum of lines not to ship", order(1, line(1, "A", 600_000_000, false), line(2, "A", 400_000_001, false)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.order.Check()
			var ve *domain.ValidationError
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (!errors.As(err, &ve) || ve.Field+": "+ve.Reason != tt.want):
				t.Fatalf("error %v, want %s", err, tt.want)
			}
		})
	}
}

// A checked order ships one line per trimmed SKU, in order of first
// appearance, quantities summed; lines to ship without a SKU are listed;
// lines that need no shipping are left out.
func TestStorefrontOrderShipmentLines(t *testing.T) {
	o := intake.StorefrontOrder{ID: 1, Lines: []intake.StorefrontLine{
		{ID: 1, SKU: "B", Quantity: 2, RequiresShipping: true},
		{ID: 2, SKU: " A\t", Quantity: 1, RequiresShipping: true},
		{ID: 3, SKU: "", Quantity: 1, RequiresShipping: false},
		{ID: 4, SKU: "  ", Quantity: 1, RequiresShipping: true},
		{ID: 5, SKU: "B ", Quantity: 3, RequiresShipping: true},
		{ID: 6, SKU: "a", Quantity: 1, RequiresShipping: true},
		{ID: 7, SKU: "", Quantity: 1, RequiresShipping: true},
	}}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	lines, missing := o.ShipmentLines()
	want := []shipping.ShipmentLine{{SKU: "B", Quantity: 5}, {SKU: "A", Quantity: 1}, {SKU: "a", Quantity: 1}}
	if !reflect.DeepEqual(lines, want) || !reflect.DeepEqual(missing, []int64{4, 7}) {
		t.Errorf("lines %+v, missing %v; want %+v and [4 7]", lines, missing, want)
	}
}
