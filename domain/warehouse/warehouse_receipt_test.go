package warehouse_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
)

var recvNow = time.Date(2026, 11, 26, 12, 0, 0, 123_456_789, time.UTC)

func recvReport() warehouse.ReceiptReport {
	return warehouse.ReceiptReport{
		WarehouseID: "wh_1", OrganizationID: "org_1", Reference: "ASN-1",
		Lines: []warehouse.ReceiptLine{
			{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 10},
			{Kind: shipping.KindCarton, ItemID: "ctn_1", Quantity: 2},
		},
	}
}

// newReceipt is the receipt rcv_1 made at recvNow.
func newReceipt(r warehouse.ReceiptReport) (*warehouse.Receipt, error) {
	return warehouse.NewReceipt("rcv_1", recvNow, r)
}

func TestNewReceiptValidates(t *testing.T) {
	past := recvNow.Add(-48 * time.Hour)
	future := recvNow.Add(time.Second)
	domaintest.Edits(t, recvReport, newReceipt, []domaintest.Edit[warehouse.ReceiptReport]{
		{Name: "valid", Edit: func(p *warehouse.ReceiptReport) {}, WantField: ""},
		{Name: "in the past", Edit: func(p *warehouse.ReceiptReport) { p.ReceivedAt = &past }, WantField: ""},
		{Name: "now exactly", Edit: func(p *warehouse.ReceiptReport) { p.ReceivedAt = &recvNow }, WantField: ""},
		{Name: "in the future", Edit: func(p *warehouse.ReceiptReport) { p.ReceivedAt = &future }, WantField: "receivedAt"},
		{Name: "no organization", Edit: func(p *warehouse.ReceiptReport) { p.OrganizationID = "" }, WantField: "organizationId"},
		{Name: "no reference", Edit: func(p *warehouse.ReceiptReport) { p.Reference = "" }, WantField: "reference"},
		{Name: "64 characters", Edit: func(p *warehouse.ReceiptReport) { p.Reference = strings.Repeat("é", 64) }, WantField: ""},
		{Name: "65 characters", Edit: func(p *warehouse.ReceiptReport) { p.Reference = strings.Repeat("a", 65) }, WantField: "reference"},
		{Name: "NUL in reference", Edit: func(p *warehouse.ReceiptReport) { p.Reference = "a\x00" }, WantField: "reference"},
		{Name: "no items", Edit: func(p *warehouse.ReceiptReport) { p.Lines = nil }, WantField: "items"},
		{Name: "too many items", Edit: func(p *warehouse.ReceiptReport) {
			p.Lines = make([]warehouse.ReceiptLine, warehouse.MaxReceiptLines+1)
		}, WantField: "items"},
		{Name: "an item without its ID", Edit: func(p *warehouse.ReceiptReport) { p.Lines[1].ItemID = "" }, WantField: "items[1]"},
		{Name: "an item of no kind", Edit: func(p *warehouse.ReceiptReport) { p.Lines[0].Kind = "" }, WantField: "items[0]"},
		{Name: "zero quantity", Edit: func(p *warehouse.ReceiptReport) { p.Lines[0].Quantity = 0 }, WantField: "items[0].quantity"},
		{Name: "quantity above the bound", Edit: func(p *warehouse.ReceiptReport) {
			p.Lines[1].Quantity = shipping.MaxLineQuantity + 1
		}, WantField: "items[1].quantity"},
		{Name: "quantity at the bound", Edit: func(p *warehouse.ReceiptReport) { p.Lines[1].Quantity = shipping.MaxLineQuantity }, WantField: ""},
		{Name: "duplicates adding up above the bound", Edit: func(p *warehouse.ReceiptReport) {
			p.Lines = []warehouse.ReceiptLine{
				{Kind: shipping.KindProduct, ItemID: "p", Quantity: shipping.MaxLineQuantity},
				{Kind: shipping.KindProduct, ItemID: "p", Quantity: 1},
			}
		}, WantField: "items[1].quantity"},
	})
}

func TestNewReceiptMergesDuplicatesAndDefaultsTime(t *testing.T) {
	p := recvReport()
	p.Lines = append(p.Lines, warehouse.ReceiptLine{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 5},
		warehouse.ReceiptLine{Kind: shipping.KindCarton, ItemID: "prod_1", Quantity: 1})
	r, err := newReceipt(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []warehouse.ReceiptLine{
		{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 15},
		{Kind: shipping.KindCarton, ItemID: "ctn_1", Quantity: 2},
		{Kind: shipping.KindCarton, ItemID: "prod_1", Quantity: 1},
	}
	if got := r.Lines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines = %+v, want %+v", got, want)
	}
	wantAt := recvNow.Truncate(time.Millisecond)
	if !r.ReceivedAt().Equal(wantAt) || r.ReceivedAtGiven() || !r.CreatedAt().Equal(wantAt) {
		t.Fatalf("receivedAt %v given %v createdAt %v, want %v not given", r.ReceivedAt(), r.ReceivedAtGiven(), r.CreatedAt(), wantAt)
	}
	if r.Units(shipping.KindProduct) != 15 || r.Units(shipping.KindCarton) != 3 {
		t.Fatalf("units %d products, %d cartons", r.Units(shipping.KindProduct), r.Units(shipping.KindCarton))
	}
}

func TestReceiptSameContent(t *testing.T) {
	at := recvNow.Add(-time.Hour)
	other := recvNow.Add(-2 * time.Hour)
	base := func(edit func(p *warehouse.ReceiptReport)) *warehouse.Receipt {
		return domaintest.Made(t, recvReport, newReceipt, edit)
	}
	stored := base(func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at })
	storedDefault := base(func(p *warehouse.ReceiptReport) {})
	tests := []struct {
		name   string
		stored *warehouse.Receipt
		retry  func(p *warehouse.ReceiptReport)
		want   bool
	}{
		{"identical", stored, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at }, true},
		{"items in another order", stored, func(p *warehouse.ReceiptReport) {
			p.ReceivedAt = &at
			p.Lines[0], p.Lines[1] = p.Lines[1], p.Lines[0]
		}, true},
		{"a line split in two", stored, func(p *warehouse.ReceiptReport) {
			p.ReceivedAt = &at
			p.Lines[0].Quantity = 4
			p.Lines = append(p.Lines, warehouse.ReceiptLine{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 6})
		}, true},
		{"no time given: any stored time", stored, func(p *warehouse.ReceiptReport) {}, true},
		{"another time", stored, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &other }, false},
		{"a time given, none stored", storedDefault, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at }, false},
		{"another quantity", stored, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at; p.Lines[0].Quantity = 11 }, false},
		{"another item", stored, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at; p.Lines[0].ItemID = "prod_2" }, false},
		{"a product for a carton", stored, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at; p.Lines[1].Kind = shipping.KindProduct }, false},
		{"one item less", stored, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at; p.Lines = p.Lines[:1] }, false},
		{"another organization", stored, func(p *warehouse.ReceiptReport) { p.ReceivedAt = &at; p.OrganizationID = "org_2" }, false},
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
	products := map[string]shipping.InventoryItem{"prod_1": {ID: "prod_1", OrganizationID: "org_1", Kind: shipping.KindProduct, SKU: "TEE"}}
	cartons := map[string]shipping.InventoryItem{"ctn_1": {ID: "ctn_1", OrganizationID: "org_1", Kind: shipping.KindCarton, SKU: "CTN"}}
	r, err := newReceipt(recvReport())
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
		products map[string]shipping.InventoryItem
		cartons  map[string]shipping.InventoryItem
		want     *shipping.UnknownItemsError
	}{
		{"no product", nil, cartons, &shipping.UnknownItemsError{Kind: shipping.KindProduct, IDs: []string{"prod_1"}}},
		{"no carton", products, nil, &shipping.UnknownItemsError{Kind: shipping.KindCarton, IDs: []string{"ctn_1"}}},
		{"neither", nil, nil, &shipping.UnknownItemsError{IDs: []string{"prod_1", "ctn_1"}}},
		{"another organization's", map[string]shipping.InventoryItem{"prod_1": {ID: "prod_1", OrganizationID: "org_2"}}, cartons,
			&shipping.UnknownItemsError{Kind: shipping.KindProduct, IDs: []string{"prod_1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newReceipt(recvReport())
			var got *shipping.UnknownItemsError
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
	p := recvReport()
	p.ReceivedAt = &at
	r, _ := newReceipt(p)
	want := shipping.StockChange{
		OrganizationID: "org_1", WarehouseID: "wh_1", Reason: shipping.MovementReceipt, ReceiptID: "rcv_1",
		OccurredAt: at.Truncate(time.Millisecond),
		Deltas: []shipping.StockDelta{
			{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 10},
			{Kind: shipping.KindCarton, ItemID: "ctn_1", Quantity: 2},
		},
	}
	if got := r.Movements(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Movements = %+v, want %+v", got, want)
	}
}

// A report sent without its time that raced a close is dated after it:
// at now, or at the close's end rounded up to the millisecond when that
// is later; one whose time was given, or that lies in the open period
// already, keeps its time.
func TestDateAfterAClose(t *testing.T) {
	t0 := recvNow.Truncate(time.Millisecond)
	closed := t0.Add(time.Hour + 1500*time.Microsecond)
	for _, tt := range []struct {
		name      string
		given     bool
		now       time.Time
		until     time.Time
		moved     bool
		want      time.Time
		wantAdded time.Time
	}{
		{"now is after the close", false, closed.Add(time.Minute), closed, true, closed.Add(time.Minute).Truncate(time.Millisecond), closed.Add(time.Minute).Truncate(time.Millisecond)},
		{"the close's end is later than now", false, t0.Add(time.Minute), closed, true, t0.Add(time.Hour + 2*time.Millisecond), t0.Add(time.Hour + 2*time.Millisecond)},
		{"in the open period already", false, closed, t0, false, t0, t0},
		{"given", true, closed, closed, false, t0.Add(-time.Hour), t0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := recvReport()
			if tt.given {
				at := t0.Add(-time.Hour)
				r.ReceivedAt = &at
			}
			rec, err := newReceipt(r)
			if err != nil {
				t.Fatal(err)
			}
			if moved := rec.DateAfter(tt.now, tt.until); moved != tt.moved {
				t.Fatalf("moved %v, want %v", moved, tt.moved)
			}
			if !rec.ReceivedAt().Equal(tt.want) || !rec.CreatedAt().Equal(tt.wantAdded) || rec.Movements().OccurredAt != rec.ReceivedAt() {
				t.Fatalf("received %v, created %v; want %v, %v", rec.ReceivedAt(), rec.CreatedAt(), tt.want, tt.wantAdded)
			}
		})
	}
}

// A receipt past the bound of on hand names the quantity of the body's
// first line of the item (lines of one item merge), and is
// ErrOnHandBound; with no item known, it names `items`.
func TestOnHandPastNamesTheLine(t *testing.T) {
	r := recvReport()
	r.Lines = append([]warehouse.ReceiptLine{{Kind: shipping.KindCarton, ItemID: "prod_1", Quantity: 1}}, r.Lines...)
	r.Lines = append(r.Lines, warehouse.ReceiptLine{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 5})
	for _, tt := range []struct {
		items []warehouse.OnHandOver
		want  string
	}{
		{[]warehouse.OnHandOver{{Kind: shipping.KindProduct, ItemID: "prod_1", OnHand: warehouse.MaxOnHand, Quantity: 15}}, "items[1].quantity"},
		{nil, "items"},
	} {
		err := r.OnHandPast(&warehouse.OnHandBoundError{Items: tt.items})
		var ve *domain.ValidationError
		if !errors.As(err, &ve) || ve.Field != tt.want || !errors.Is(err, warehouse.ErrOnHandBound) {
			t.Fatalf("%v: names %+v, want %s and ErrOnHandBound", err, ve, tt.want)
		}
	}
}
