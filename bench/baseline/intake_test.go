package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strconv"
	"testing"
)

// The intake's statements must be the service's, byte for byte: its
// constants are unexported, so they are read from its source (the files
// whose constants acceptOrderSQL is made of).
func TestIntakeSQLIsTheService(t *testing.T) {
	service := stringConsts(t, "../../adapters/postgres/receipts.go", "../../adapters/postgres/shipments.go",
		"../../adapters/postgres/inventory.go")
	for name, ours := range map[string]string{"claimOrderSQL": claimOrderSQL, "acceptOrderSQL": acceptOrderSQL} {
		if theirs, ok := service[name]; !ok {
			t.Errorf("%s: not found in the service's receipts.go", name)
		} else if ours != theirs {
			t.Errorf("%s differs from the service's:\n--- ours\n%s\n--- the service's\n%s", name, ours, theirs)
		}
	}
}

// stringConsts evaluates the string constants of Go files made of
// literals, other constants of the files and +.
func stringConsts(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	exprs := map[string]ast.Expr{}
	for _, path := range paths {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					v := s.(*ast.ValueSpec)
					for i, n := range v.Names {
						if i < len(v.Values) {
							exprs[n.Name] = v.Values[i]
						}
					}
				}
			}
		}
	}
	var eval func(ast.Expr) (string, bool)
	eval = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		case *ast.Ident:
			if x, ok := exprs[e.Name]; ok {
				return eval(x)
			}
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				a, ok1 := eval(e.X)
				b, ok2 := eval(e.Y)
				return a + b, ok1 && ok2
			}
		}
		return "", false
	}
	out := map[string]string{}
	for name, e := range exprs {
		if s, ok := eval(e); ok {
			out[name] = s
		}
	}
	return out
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
