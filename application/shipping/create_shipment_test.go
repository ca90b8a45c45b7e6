package shipping_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/acme3pl/fulfillment/application/apptest"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestCreateShipmentStoresADraft(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	s, err := app.Shipping.CreateShipment.Handle(context.Background(),
		apptest.ShipPickPack(apptest.ShipLine("prod_2", 1), apptest.ShipLine("prod_1", 2), apptest.ShipLine("prod_2", 3)))
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != "shp_1" || s.Kind() != shipping.PickPack || s.Status() != shipping.ShipmentDraft || !s.Test() {
		t.Fatalf("shipment %s kind %s status %s test %v", s.ID(), s.Kind(), s.Status(), s.Test())
	}
	if s.Warehouse() != (domain.WarehouseRef{ID: "wh_a", Name: "East"}) {
		t.Fatalf("warehouse %+v", s.Warehouse())
	}
	want := []shipping.ShipmentLine{{ItemID: "prod_2", SKU: "TEE-WHT-L", Quantity: 4}, {ItemID: "prod_1", SKU: "TEE-BLK-M", Quantity: 2}}
	if !reflect.DeepEqual(s.Lines(), want) {
		t.Fatalf("lines %s, want %s", apptest.ShipLinesString(s.Lines()), apptest.ShipLinesString(want))
	}
	if !s.CreatedAt().Equal(apptest.ShipT0) || s.SubmittedAt() != nil || s.Notes() != "leave at door" || s.Address().Name != "Ada" {
		t.Fatalf("created %v submitted %v notes %q address %+v", s.CreatedAt(), s.SubmittedAt(), s.Notes(), s.Address())
	}
	got, err := app.Shipping.GetShipment.Handle(context.Background(), shippingapp.GetShipment{OrganizationID: "org_ship_a", ShipmentID: "shp_1"})
	if err != nil || !reflect.DeepEqual(got.Lines(), want) {
		t.Fatalf("stored shipment: %v %v", got, err)
	}
	if db.Level("wh_a", "prod_1").Reserved != 0 {
		t.Fatal("a draft reserved stock")
	}
}

func TestCreateShipmentTestFlagFollowsTheEnvironment(t *testing.T) {
	tests := []struct {
		env  domain.Environment
		want bool
	}{
		{domain.Sandbox, true},
		{domain.Production, false},
		{"", true}, // unset never makes real shipments
	}
	for _, tt := range tests {
		t.Run(string(tt.env), func(t *testing.T) {
			app, _ := apptest.ShipApp(apptest.ShipFixture(), tt.env)
			s, err := app.Shipping.CreateShipment.Handle(context.Background(), apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
			if err != nil {
				t.Fatal(err)
			}
			if s.Test() != tt.want {
				t.Fatalf("test %v, want %v", s.Test(), tt.want)
			}
		})
	}
}

func TestCreateShipmentRefusals(t *testing.T) {
	withWarehouse := func(c shippingapp.CreateShipment, wh string) shippingapp.CreateShipment {
		c.WarehouseID = wh
		return c
	}
	tests := []struct {
		name        string
		cmd         shippingapp.CreateShipment
		wantErr     error    // a sentinel, or nil when wantUnknown or wantField is set
		wantUnknown []string // apptest.IDs of a *shipping.UnknownItemsError
		wantField   string   // field of a *domain.ValidationError
	}{
		{name: "unknown warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "wh_nope"), wantErr: domain.ErrInvalidWarehouse},
		{name: "inactive warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "wh_off"), wantErr: domain.ErrInvalidWarehouse},
		{name: "other organization's warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "wh_b"), wantErr: domain.ErrInvalidWarehouse},
		{name: "warehouse that cannot be an ID", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "' OR 1=1"), wantErr: domain.ErrInvalidWarehouse},
		{name: "warehouse checked before items", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_x", 1)), "wh_nope"), wantErr: domain.ErrInvalidWarehouse},
		{name: "no warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), ""), wantField: "warehouseId"},
		{
			name:        "unknown, other organization's and wrong-kind items, de-duplicated in order",
			cmd:         apptest.ShipPickPack(apptest.ShipLine("prod_x", 1), apptest.ShipLine("prod_1", 1), apptest.ShipLine("prod_b", 1), apptest.ShipLine("prod_x", 2), apptest.ShipLine("ctn_1", 1), apptest.ShipLine("a b", 1)),
			wantUnknown: []string{"prod_x", "prod_b", "ctn_1", "a b"},
		},
		{name: "product in an SPD draft", cmd: apptest.ShipSPD(apptest.ShipLine("ctn_1", 1), apptest.ShipLine("prod_1", 1)), wantUnknown: []string{"prod_1"}},
		{name: "no lines", cmd: apptest.ShipSPD(), wantField: "cartons"},
		{name: "zero quantity", cmd: apptest.ShipPickPack(apptest.ShipLine("prod_1", 0)), wantField: "items[0].quantity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, app, _ := apptest.ShipSandbox()
			s, err := app.Shipping.CreateShipment.Handle(context.Background(), tt.cmd)
			if s != nil {
				t.Fatalf("created %s", s.ID())
			}
			switch {
			case tt.wantUnknown != nil:
				var ui *shipping.UnknownItemsError
				if !errors.As(err, &ui) || !reflect.DeepEqual(ui.IDs, tt.wantUnknown) {
					t.Fatalf("error %v, want unknown items %v", err, tt.wantUnknown)
				}
			case tt.wantField != "":
				domaintest.MatchField(t, err, tt.wantField)
			default:
				domaintest.MatchErr(t, err, tt.wantErr)
			}
			if len(db.State.Shipments) != 0 || db.Commits != 0 {
				t.Fatalf("a refused draft was stored (%d shipments, %d commits)", len(db.State.Shipments), db.Commits)
			}
		})
	}
}
