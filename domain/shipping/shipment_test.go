package shipping_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

var shipNow = time.Date(2026, 11, 22, 1, 15, 5, 123_000_000, time.FixedZone("CET", 3600))

func shipValidParams() shipping.NewShipmentParams {
	return shipping.NewShipmentParams{
		ID: "shp_1", OrganizationID: "org_ship_1", Kind: shipping.SPD,
		Warehouse: domain.WarehouseRef{ID: "wh_1", Name: "East"},
		Lines:     []shipping.ShipmentLine{{ItemID: "ctn_1", SKU: "CTN-1", Quantity: 2}},
		Now:       shipNow,
	}
}

func TestNewShipmentValidates(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(p *shipping.NewShipmentParams)
		wantField string // "" when valid
	}{
		{"valid SPD", func(p *shipping.NewShipmentParams) {}, ""},
		{"valid Pick & Pack", func(p *shipping.NewShipmentParams) { p.Kind = shipping.PickPack }, ""},
		{"no id", func(p *shipping.NewShipmentParams) { p.ID = "" }, "shipment"},
		{"no organization", func(p *shipping.NewShipmentParams) { p.OrganizationID = "" }, "shipment"},
		{"unknown kind", func(p *shipping.NewShipmentParams) { p.Kind = "pallet" }, "kind"},
		{"no warehouse", func(p *shipping.NewShipmentParams) { p.Warehouse.ID = "" }, "warehouseId"},
		{"no cartons", func(p *shipping.NewShipmentParams) { p.Lines = nil }, "cartons"},
		{"no items", func(p *shipping.NewShipmentParams) { p.Kind, p.Lines = shipping.PickPack, nil }, "items"},
		{"too many lines", func(p *shipping.NewShipmentParams) {
			p.Lines = make([]shipping.ShipmentLine, shipping.MaxShipmentLines+1)
		}, "cartons"},
		{"no carton id", func(p *shipping.NewShipmentParams) { p.Lines[0].ItemID = "" }, "cartons[0].cartonId"},
		{"no product id", func(p *shipping.NewShipmentParams) {
			p.Kind = shipping.PickPack
			p.Lines = append(p.Lines, shipping.ShipmentLine{Quantity: 1})
		}, "items[1].productId"},
		{"an item ID no record has is Resolve's to refuse", func(p *shipping.NewShipmentParams) { p.Lines[0].ItemID = "a b" }, ""},
		{"a warehouse ID no warehouse has is the use case's to refuse", func(p *shipping.NewShipmentParams) { p.Warehouse.ID = "x y" }, ""},
		{"zero quantity", func(p *shipping.NewShipmentParams) { p.Lines[0].Quantity = 0 }, "cartons[0].quantity"},
		{"negative quantity", func(p *shipping.NewShipmentParams) {
			p.Kind = shipping.PickPack
			p.Lines = append(p.Lines, shipping.ShipmentLine{ItemID: "prod_2", Quantity: -1})
		}, "items[1].quantity"},
		{"largest quantity", func(p *shipping.NewShipmentParams) { p.Lines[0].Quantity = shipping.MaxLineQuantity }, ""},
		{"quantity above the bound", func(p *shipping.NewShipmentParams) { p.Lines[0].Quantity = shipping.MaxLineQuantity + 1 }, "cartons[0].quantity"},
		{"quantity 2^62", func(p *shipping.NewShipmentParams) { p.Lines[0].Quantity = 1 << 62 }, "cartons[0].quantity"},
		{"quantity 2^63-1", func(p *shipping.NewShipmentParams) { p.Lines[0].Quantity = math.MaxInt64 }, "cartons[0].quantity"},
		{"quantity -2^63", func(p *shipping.NewShipmentParams) { p.Lines[0].Quantity = math.MinInt64 }, "cartons[0].quantity"},
		{"merged quantity at the bound", func(p *shipping.NewShipmentParams) {
			p.Lines = []shipping.ShipmentLine{{ItemID: "ctn_1", Quantity: shipping.MaxLineQuantity - 1}, {ItemID: "ctn_1", Quantity: 1}}
		}, ""},
		{"merged quantity above the bound", func(p *shipping.NewShipmentParams) {
			p.Lines = []shipping.ShipmentLine{{ItemID: "ctn_1", Quantity: shipping.MaxLineQuantity}, {ItemID: "ctn_1", Quantity: 1}}
		}, "cartons"},
		{"notes too long", func(p *shipping.NewShipmentParams) { p.Notes = strings.Repeat("n", 5001) }, "notes"},
		{"notes at the bound", func(p *shipping.NewShipmentParams) { p.Notes = strings.Repeat("é", shipping.MaxNotesBytes/2) }, ""},
		{"notes with NUL", func(p *shipping.NewShipmentParams) { p.Notes = "a\x00" }, "notes"},
		{"shipping fields at the bound", func(p *shipping.NewShipmentParams) {
			p.Address = shipping.Address{Name: strings.Repeat("ü", 255), Phone: strings.Repeat("1", 255), Country: "de"}
		}, ""},
		{"shipping field too long", func(p *shipping.NewShipmentParams) { p.Address.Address2 = strings.Repeat("x", 256) }, "shippingAddress2"},
		{"shipping field with NUL", func(p *shipping.NewShipmentParams) { p.Address.City = "a\x00b" }, "shippingCity"},
		{"country of three letters", func(p *shipping.NewShipmentParams) { p.Address.Country = "USA" }, "shippingCountry"},
		{"country not letters", func(p *shipping.NewShipmentParams) { p.Address.Country = "1A" }, "shippingCountry"},
		{"country not ASCII", func(p *shipping.NewShipmentParams) { p.Address.Country = "ıd" }, "shippingCountry"},
		{"a storefront's address is kept as sent", func(p *shipping.NewShipmentParams) {
			p.Source = &shipping.ShipmentSource{Type: "storefront", OrderID: 1}
			p.Address = shipping.Address{Name: strings.Repeat("x", 300), Country: "deu"}
		}, ""},
		{"a storefront's address holds no NUL either", func(p *shipping.NewShipmentParams) {
			p.Source = &shipping.ShipmentSource{Type: "storefront", OrderID: 1}
			p.Address.Zip = "\x00"
		}, "shippingZip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := shipValidParams()
			p.Lines = append([]shipping.ShipmentLine(nil), p.Lines...)
			tt.edit(&p)
			s, err := shipping.NewShipment(p)
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("NewShipment: %v", err)
				}
				if s.Status() != shipping.ShipmentDraft || s.SubmittedAt() != nil {
					t.Fatalf("new shipment is %s (submitted %v), want a draft", s.Status(), s.SubmittedAt())
				}
				return
			}
			domaintest.MatchField(t, err, tt.wantField)
		})
	}
}

func TestNewShipmentMergesLinesInOrderOfFirstAppearance(t *testing.T) {
	p := shipValidParams()
	p.Lines = []shipping.ShipmentLine{
		{ItemID: "ctn_b", SKU: "B", Quantity: 1},
		{ItemID: "ctn_a", SKU: "A", Quantity: 2},
		{ItemID: "ctn_b", SKU: "B", Quantity: 3},
	}
	s, err := shipping.NewShipment(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []shipping.ShipmentLine{{ItemID: "ctn_b", SKU: "B", Quantity: 4}, {ItemID: "ctn_a", SKU: "A", Quantity: 2}}
	if got := s.Lines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines %+v, want %+v", got, want)
	}
	s.Lines()[0].Quantity = 99 // a copy: the aggregate is unchanged
	if s.Lines()[0].Quantity != 4 {
		t.Fatal("Lines() exposes the aggregate's slice")
	}
	if !s.CreatedAt().Equal(shipNow) || s.CreatedAt().Location() != time.UTC || !s.UpdatedAt().Equal(shipNow) {
		t.Fatalf("times %v / %v, want %v in UTC", s.CreatedAt(), s.UpdatedAt(), shipNow)
	}
}

// The checks run in the order of a draft's body: warehouse, shipping
// fields, notes, lines.
func TestNewShipmentChecksInOrder(t *testing.T) {
	domaintest.Edits(t, shipValidParams, shipping.NewShipment, []domaintest.Edit[shipping.NewShipmentParams]{
		{Name: "warehouse first", Edit: func(p *shipping.NewShipmentParams) {
			p.Warehouse.ID, p.Address.Name, p.Notes, p.Lines = "", "\x00", "\x00", nil
		}, WantField: "warehouseId"},
		{Name: "then the shipping fields, in order", Edit: func(p *shipping.NewShipmentParams) {
			p.Address.City, p.Address.Name, p.Notes, p.Lines = strings.Repeat("c", 256), "\x00", "\x00", nil
		}, WantField: "shippingName"},
		{Name: "then the notes", Edit: func(p *shipping.NewShipmentParams) { p.Notes, p.Lines = "\x00", nil }, WantField: "notes"},
		{Name: "then the lines, in order", Edit: func(p *shipping.NewShipmentParams) {
			p.Lines = []shipping.ShipmentLine{{ItemID: "ctn_1", Quantity: 0}, {ItemID: "", Quantity: 1}}
		}, WantField: "cartons[0].quantity"},
	})
}

func TestNewShipmentUpperCasesTheCountryOfAnAPIDraft(t *testing.T) {
	tests := []struct {
		name   string
		source *shipping.ShipmentSource
		want   string
	}{
		{"entered through the API", nil, "US"},
		{"from a storefront: as sent", &shipping.ShipmentSource{Type: "storefront", OrderID: 1}, "us"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := shipValidParams()
			p.Address.Country, p.Source = "us", tt.source
			s, err := shipping.NewShipment(p)
			if err != nil || s.Address().Country != tt.want {
				t.Fatalf("country %q, %v; want %q", s.Address().Country, err, tt.want)
			}
		})
	}
}

func TestShipmentResolve(t *testing.T) {
	item := func(id, org string, kind shipping.ItemKind, sku string) shipping.InventoryItem {
		return shipping.InventoryItem{ID: id, OrganizationID: org, Kind: kind, SKU: sku}
	}
	records := map[string]shipping.InventoryItem{
		"prod_1": item("prod_1", "org_ship_1", shipping.KindProduct, "P-1"),
		"prod_2": item("prod_2", "org_ship_1", shipping.KindProduct, "P-2"),
		"ctn_1":  item("ctn_1", "org_ship_1", shipping.KindCarton, "C-1"),
		"prod_x": item("prod_x", "org_other", shipping.KindProduct, "X"),
	}
	draft := func(ids ...string) *shipping.Shipment {
		p := shipValidParams()
		p.Kind, p.Warehouse, p.Lines = shipping.PickPack, domain.WarehouseRef{ID: "wh_1"}, nil
		for _, id := range ids {
			p.Lines = append(p.Lines, shipping.ShipmentLine{ItemID: id, Quantity: 1})
		}
		s, err := shipping.NewShipment(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	east := domain.WarehouseRef{ID: "wh_1", Name: "East"}
	tests := []struct {
		name        string
		lines       []string
		want        []shipping.ShipmentLine
		wantUnknown []string
	}{
		{name: "known items get their SKUs", lines: []string{"prod_2", "prod_1", "prod_2"},
			want: []shipping.ShipmentLine{{ItemID: "prod_2", SKU: "P-2", Quantity: 2}, {ItemID: "prod_1", SKU: "P-1", Quantity: 1}}},
		{name: "unknown, another organization's, the other kind and no record's shape, in line order",
			lines: []string{"prod_nope", "prod_1", "prod_x", "ctn_1", "a b", "prod_nope"}, wantUnknown: []string{"prod_nope", "prod_x", "ctn_1", "a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := draft(tt.lines...)
			before := s.Lines()
			err := s.Resolve(east, records)
			if tt.wantUnknown != nil {
				var ui *shipping.UnknownItemsError
				if !errors.As(err, &ui) || ui.Kind != shipping.KindProduct || !reflect.DeepEqual(ui.IDs, tt.wantUnknown) {
					t.Fatalf("error %v, want unknown products %v", err, tt.wantUnknown)
				}
				if !reflect.DeepEqual(s.Lines(), before) || s.Warehouse().Name != "" {
					t.Fatal("a refused Resolve changed the draft")
				}
				return
			}
			if err != nil || !reflect.DeepEqual(s.Lines(), tt.want) || s.Warehouse() != east {
				t.Fatalf("lines %+v warehouse %+v, %v; want %+v at %+v", s.Lines(), s.Warehouse(), err, tt.want, east)
			}
		})
	}
	if err := draft("prod_1").Resolve(domain.WarehouseRef{ID: "wh_2", Name: "West"}, records); err == nil {
		t.Fatal("a draft was resolved with another warehouse than it names")
	}
}

// stored returns a shipment in status st as the postgres adapter would.
func shipStored(st shipping.ShipmentStatus) *shipping.Shipment {
	var submitted, shipped *time.Time
	var tracking *shipping.Tracking
	if st == shipping.ShipmentPending || st == shipping.ShipmentShipped {
		t := shipNow
		submitted = &t
	}
	if st == shipping.ShipmentShipped {
		t := shipNow
		shipped, tracking = &t, &shipping.Tracking{Carrier: "UPS", Number: "1Z999AA10123456784"}
	}
	return shipping.RehydrateShipment(shipping.RehydrateShipmentParams{
		NewShipmentParams: shipValidParams(), Status: st, CreatedAt: shipNow, UpdatedAt: shipNow, SubmittedAt: submitted,
		ShippedAt: shipped, Tracking: tracking,
	})
}

// Submit and Cancel from each status: the status they leave, whether a
// cancel releases a reservation (a pending shipment's), and the times they
// set (a cancel keeps submittedAt); a refused one changes nothing.
func TestSubmitAndCancelTransitions(t *testing.T) {
	later := shipNow.Add(time.Hour)
	submit := func(s *shipping.Shipment) (bool, error) { return false, s.Submit(later) }
	cancel := func(s *shipping.Shipment) (bool, error) { return s.Cancel(later) }
	tests := []struct {
		name         string
		do           func(*shipping.Shipment) (releases bool, err error)
		from         shipping.ShipmentStatus
		want         shipping.ShipmentStatus
		wantReleases bool
		wantErr      error
	}{
		{"submit", submit, shipping.ShipmentDraft, shipping.ShipmentPending, false, nil},
		{"submit", submit, shipping.ShipmentPending, shipping.ShipmentPending, false, domain.ErrInvalidState},
		{"submit", submit, shipping.ShipmentShipped, shipping.ShipmentShipped, false, domain.ErrInvalidState},
		{"submit", submit, shipping.ShipmentCancelled, shipping.ShipmentCancelled, false, domain.ErrInvalidState},
		{"cancel", cancel, shipping.ShipmentDraft, shipping.ShipmentCancelled, false, nil},
		{"cancel", cancel, shipping.ShipmentPending, shipping.ShipmentCancelled, true, nil},
		{"cancel", cancel, shipping.ShipmentShipped, shipping.ShipmentShipped, false, domain.ErrInvalidState},
		{"cancel", cancel, shipping.ShipmentCancelled, shipping.ShipmentCancelled, false, domain.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+string(tt.from), func(t *testing.T) {
			s := shipStored(tt.from)
			before := s.SubmittedAt()
			releases, err := tt.do(s)
			domaintest.MatchErr(t, err, tt.wantErr)
			if releases != tt.wantReleases || s.Status() != tt.want {
				t.Fatalf("releases %v, status %s; want %v, %s", releases, s.Status(), tt.wantReleases, tt.want)
			}
			if tt.wantErr != nil {
				if s.SubmittedAt() != before || !s.UpdatedAt().Equal(shipNow) {
					t.Fatalf("a refused %s changed the shipment", tt.name)
				}
				return
			}
			if !s.UpdatedAt().Equal(later) {
				t.Fatalf("updatedAt %v, want %v", s.UpdatedAt(), later)
			}
			submitted := s.SubmittedAt() != nil && s.SubmittedAt().Equal(later)
			if tt.name == "cancel" {
				submitted = s.SubmittedAt() == before
			}
			if !submitted {
				t.Fatalf("submittedAt %v after %s from %s", s.SubmittedAt(), tt.name, tt.from)
			}
		})
	}
}

func TestCancelledDraftCannotBeSubmitted(t *testing.T) {
	s, err := shipping.NewShipment(shipValidParams())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cancel(shipNow); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(shipNow); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("Submit after Cancel: %v, want ErrInvalidState", err)
	}
}

func TestParseShipmentStatus(t *testing.T) {
	tests := []struct {
		in      string
		want    shipping.ShipmentStatus
		wantErr bool
	}{
		{"draft", shipping.ShipmentDraft, false},
		{"pending", shipping.ShipmentPending, false},
		{"shipped", shipping.ShipmentShipped, false},
		{"cancelled", shipping.ShipmentCancelled, false},
		{"", "", true},
		{"Pending", "", true},
		{"delivered", "", true},
	}
	for _, tt := range tests {
		got, err := shipping.ParseShipmentStatus(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseShipmentStatus(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestShipmentErrorsMatch(t *testing.T) {
	var ui *shipping.UnknownItemsError
	err := error(&shipping.UnknownItemsError{Kind: shipping.KindCarton, IDs: []string{"ctn_x", "ctn_y"}})
	if !errors.As(err, &ui) || err.Error() != "unknown cartons: ctn_x, ctn_y" {
		t.Fatalf("UnknownItemsError: %v", err)
	}
	if wrapped := errors.Join(errors.New("ctx"), domain.ErrInvalidWarehouse); !errors.Is(wrapped, domain.ErrInvalidWarehouse) {
		t.Fatal("ErrInvalidWarehouse does not match through wrapping")
	}
}

func TestMergeLinesBoundsEverySum(t *testing.T) {
	bySKU := func(l shipping.ShipmentLine) string { return l.SKU }
	tests := []struct {
		name    string
		lines   []shipping.ShipmentLine
		want    []shipping.ShipmentLine
		wantErr bool
	}{
		{"distinct", []shipping.ShipmentLine{{SKU: "A", Quantity: 1}, {SKU: "B", Quantity: 2}},
			[]shipping.ShipmentLine{{SKU: "A", Quantity: 1}, {SKU: "B", Quantity: 2}}, false},
		{"summed in order of first appearance", []shipping.ShipmentLine{{SKU: "B", Quantity: 1}, {SKU: "A", Quantity: 2}, {SKU: "B", Quantity: 3}},
			[]shipping.ShipmentLine{{SKU: "B", Quantity: 4}, {SKU: "A", Quantity: 2}}, false},
		{"sum at the bound", []shipping.ShipmentLine{{SKU: "A", Quantity: 600_000_000}, {SKU: "A", Quantity: 400_000_000}},
			[]shipping.ShipmentLine{{SKU: "A", Quantity: shipping.MaxLineQuantity}}, false},
		{"sum above the bound", []shipping.ShipmentLine{{SKU: "A", Quantity: 600_000_000}, {SKU: "A", Quantity: 400_000_001}}, nil, true},
		{"a term that would overflow int64", []shipping.ShipmentLine{{SKU: "A", Quantity: 5}, {SKU: "A", Quantity: math.MaxInt64}}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shipping.MergeLines(tt.lines, bySKU, "line_items")
			var ve *domain.ValidationError
			if tt.wantErr {
				if !errors.As(err, &ve) || ve.Field != "line_items" {
					t.Fatalf("error %v, want a validation error of line_items", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("MergeLines = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
