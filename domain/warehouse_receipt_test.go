package domain_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

var recvNow = time.Date(2026, 11, 26, 12, 0, 0, 123_456_789, time.UTC)

func recvParams() domain.NewReceiptParams {
	return domain.NewReceiptParams{
		ID: "rcv_1", WarehouseID: "wh_1", OrganizationID: "org_1", Reference: "ASN-1",
		Lines: []domain.ReceiptLine{
			{Kind: domain.KindProduct, ItemID: "prod_1", Quantity: 10},
			{Kind: domain.KindCarton, ItemID: "ctn_1", Quantity: 2},
		},
		Now: recvNow,
	}
}

func TestNewReceiptValidates(t *testing.T) {
	past := recvNow.Add(-48 * time.Hour)
	future := recvNow.Add(time.Second)
	tests := []struct {
		name      string
		edit      func(p *domain.NewReceiptParams)
		wantField string // "" when valid
	}{
		{"valid", func(p *domain.NewReceiptParams) {}, ""},
		{"in the past", func(p *domain.NewReceiptParams) { p.ReceivedAt = &past }, ""},
		{"now exactly", func(p *domain.NewReceiptParams) { p.ReceivedAt = &recvNow }, ""},
		{"in the future", func(p *domain.NewReceiptParams) { p.ReceivedAt = &future }, "receivedAt"},
		{"no organization", func(p *domain.NewReceiptParams) { p.OrganizationID = "" }, "organizationId"},
		{"no reference", func(p *domain.NewReceiptParams) { p.Reference = "" }, "reference"},
		{"64 characters", func(p *domain.NewReceiptParams) { p.Reference = strings.Repeat("é", 64) }, ""},
		{"65 characters", func(p *domain.NewReceiptParams) { p.Reference = strings.Repeat("a", 65) }, "reference"},
		{"NUL in reference", func(p *domain.NewReceiptParams) { p.Reference = "a\x00" }, "reference"},
		{"no items", func(p *domain.NewReceiptParams) { p.Lines = nil }, "items"},
		{"too many items", func(p *domain.NewReceiptParams) {
			p.Lines = make([]domain.ReceiptLine, domain.MaxReceiptLines+1)
		}, "items"},
		{"an item without its ID", func(p *domain.NewReceiptParams) { p.Lines[1].ItemID = "" }, "items[1]"},
		{"an item of no kind", func(p *domain.NewReceiptParams) { p.Lines[0].Kind = "" }, "items[0]"},
		{"zero quantity", func(p *domain.NewReceiptParams) { p.Lines[0].Quantity = 0 }, "items[0].quantity"},
		{"quantity above the bound", func(p *domain.NewReceiptParams) {
			p.Lines[1].Quantity = domain.MaxLineQuantity + 1
		}, "items[1].quantity"},
		{"quantity at the bound", func(p *domain.NewReceiptParams) { p.Lines[1].Quantity = domain.MaxLineQuantity }, ""},
		{"duplicates adding up above the bound", func(p *domain.NewReceiptParams) {
			p.Lines = []domain.ReceiptLine{
				{Kind: domain.KindProduct, ItemID: "p", Quantity: domain.MaxLineQuantity},
				{Kind: domain.KindProduct, ItemID: "p", Quantity: 1},
			}
		}, "items[1].quantity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := recvParams()
			tt.edit(&p)
			_, err := domain.NewReceipt(p)
			var ve *domain.ValidationError
			switch {
			case tt.wantField == "" && err != nil:
				t.Fatalf("NewReceipt: %v", err)
			case tt.wantField != "" && (!errors.As(err, &ve) || ve.Field != tt.wantField):
				t.Fatalf("NewReceipt: %v, want a validation error of %s", err, tt.wantField)
			}
		})
	}
}

func TestNewReceiptMergesDuplicatesAndDefaultsTime(t *testing.T) {
	p := recvParams()
	p.Lines = append(p.Lines, domain.ReceiptLine{Kind: domain.KindProduct, ItemID: "prod_1", Quantity: 5},
		domain.ReceiptLine{Kind: domain.KindCarton, ItemID: "prod_1", Quantity: 1})
	r, err := domain.NewReceipt(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.ReceiptLine{
		{Kind: domain.KindProduct, ItemID: "prod_1", Quantity: 15},
		{Kind: domain.KindCarton, ItemID: "ctn_1", Quantity: 2},
		{Kind: domain.KindCarton, ItemID: "prod_1", Quantity: 1},
	}
	if got := r.Lines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines = %+v, want %+v", got, want)
	}
	wantAt := recvNow.Truncate(time.Millisecond)
	if !r.ReceivedAt().Equal(wantAt) || r.ReceivedAtGiven() || !r.CreatedAt().Equal(wantAt) {
		t.Fatalf("receivedAt %v given %v createdAt %v, want %v not given", r.ReceivedAt(), r.ReceivedAtGiven(), r.CreatedAt(), wantAt)
	}
	if r.Units(domain.KindProduct) != 15 || r.Units(domain.KindCarton) != 3 {
		t.Fatalf("units %d products, %d cartons", r.Units(domain.KindProduct), r.Units(domain.KindCarton))
	}
}

func TestReceiptSameContent(t *testing.T) {
	at := recvNow.Add(-time.Hour)
	other := recvNow.Add(-2 * time.Hour)
	base := func(edit func(p *domain.NewReceiptParams)) *domain.Receipt {
		p := recvParams()
		edit(&p)
		r, err := domain.NewReceipt(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	stored := base(func(p *domain.NewReceiptParams) { p.ReceivedAt = &at })
	storedDefault := base(func(p *domain.NewReceiptParams) {})
	tests := []struct {
		name   string
		stored *domain.Receipt
		retry  func(p *domain.NewReceiptParams)
		want   bool
	}{
		{"identical", stored, func(p *domain.NewReceiptParams) { p.ReceivedAt = &at }, true},
		{"items in another order", stored, func(p *domain.NewReceiptParams) {
			p.ReceivedAt = &at
			p.Lines[0], p.Lines[1] = p.Lines[1], p.Lines[0]
		}, true},
		{"a line split in two", stored, func(p *domain.NewReceiptParams) {
			p.ReceivedAt = &at
			p.Lines[0].Quantity = 4
			p.Lines = append(p.Lines, domain.ReceiptLine{Kind: domain.KindProduct, ItemID: "prod_1", Quantity: 6})
		}, true},
		{"no time given: any stored time", stored, func(p *domain.NewReceiptParams) {}, true},
		{"another time", stored, func(p *domain.NewReceiptParams) { p.ReceivedAt = &other }, false},
		{"a time given, none stored", storedDefault, func(p *domain.NewReceiptParams) { p.ReceivedAt = &at }, false},
		{"another quantity", stored, func(p *domain.NewReceiptParams) { p.ReceivedAt = &at; p.Lines[0].Quantity = 11 }, false},
		{"another item", stored, func(p *domain.NewReceiptParams) { p.ReceivedAt = &at; p.Lines[0].ItemID = "prod_2" }, false},
		{"a product for a carton", stored, func(p *domain.NewReceiptParams) { p.ReceivedAt = &at; p.Lines[1].Kind = domain.KindProduct }, false},
		{"one item less", stored, func(p *domain.NewReceiptParams) { p.ReceivedAt = &at; p.Lines = p.Lines[:1] }, false},
		{"another organization", stored, func(p *domain.NewReceiptParams) { p.ReceivedAt = &at; p.OrganizationID = "org_2" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := base(tt.retry).SameContent(tt.stored); got != tt.want {
				t.Fatalf("SameContent = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReceiptResolve(t *testing.T) {
	products := map[string]domain.InventoryItem{"prod_1": {ID: "prod_1", OrganizationID: "org_1", Kind: domain.KindProduct, SKU: "TEE"}}
	cartons := map[string]domain.InventoryItem{"ctn_1": {ID: "ctn_1", OrganizationID: "org_1", Kind: domain.KindCarton, SKU: "CTN"}}
	r, err := domain.NewReceipt(recvParams())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Resolve(products, cartons); err != nil {
		t.Fatal(err)
	}
	if l := r.Lines(); l[0].SKU != "TEE" || l[1].SKU != "CTN" {
		t.Fatalf("lines %+v", l)
	}

	tests := []struct {
		name     string
		products map[string]domain.InventoryItem
		cartons  map[string]domain.InventoryItem
		want     *domain.UnknownItemsError
	}{
		{"no product", nil, cartons, &domain.UnknownItemsError{Kind: domain.KindProduct, IDs: []string{"prod_1"}}},
		{"no carton", products, nil, &domain.UnknownItemsError{Kind: domain.KindCarton, IDs: []string{"ctn_1"}}},
		{"neither", nil, nil, &domain.UnknownItemsError{IDs: []string{"prod_1", "ctn_1"}}},
		{"another organization's", map[string]domain.InventoryItem{"prod_1": {ID: "prod_1", OrganizationID: "org_2"}}, cartons,
			&domain.UnknownItemsError{Kind: domain.KindProduct, IDs: []string{"prod_1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := domain.NewReceipt(recvParams())
			var got *domain.UnknownItemsError
			if err := r.Resolve(tt.products, tt.cartons); !errors.As(err, &got) || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Resolve: %v, want %+v", err, tt.want)
			}
			if r.Lines()[0].SKU != "" {
				t.Fatal("a refused receipt changed")
			}
		})
	}
}

func TestReceiptMovements(t *testing.T) {
	at := recvNow.Add(-time.Hour)
	p := recvParams()
	p.ReceivedAt = &at
	r, _ := domain.NewReceipt(p)
	want := domain.StockChange{
		OrganizationID: "org_1", WarehouseID: "wh_1", Reason: domain.MovementReceipt, ReceiptID: "rcv_1",
		OccurredAt: at.Truncate(time.Millisecond),
		Deltas: []domain.StockDelta{
			{Kind: domain.KindProduct, ItemID: "prod_1", Quantity: 10},
			{Kind: domain.KindCarton, ItemID: "ctn_1", Quantity: 2},
		},
	}
	if got := r.Movements(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Movements = %+v, want %+v", got, want)
	}
}
