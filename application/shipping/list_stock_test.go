package shipping_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/application/apptest"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

func TestListStockShowsReservations(t *testing.T) {
	_, app, _ := apptest.ShipSandbox()
	apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 2)))
	res, err := app.Shipping.ListStock.Handle(context.Background(), shippingapp.ListStock{
		OrganizationID: "org_ship_a", Kind: shipping.KindCarton, SKU: "  CTN-TEE-24 ", Page: ports.Page{Take: 10},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.More || res.Items[0].Item.ID != "ctn_1" {
		t.Fatalf("items %+v more %v, want ctn_1 only", res.Items, res.More)
	}
	want := []shipping.StockLevel{{Warehouse: domain.WarehouseRef{ID: "wh_a", Name: "East"}, OnHand: 5, Reserved: 2}}
	if got := res.Items[0].Levels; !reflect.DeepEqual(got, want) || got[0].Available() != 3 {
		t.Fatalf("levels %+v, want %+v (available 3)", got, want)
	}
}

func TestListStockRefusals(t *testing.T) {
	_, app, _ := apptest.ShipSandbox()
	tests := []struct {
		name      string
		q         shippingapp.ListStock
		wantField string
	}{
		{"unknown kind", shippingapp.ListStock{OrganizationID: "org_ship_a", Kind: "pallet", Page: ports.Page{Take: 10}}, "kind"},
		{"sku too long", shippingapp.ListStock{OrganizationID: "org_ship_a", Kind: shipping.KindProduct, SKU: strings.Repeat("s", 256), Page: ports.Page{Take: 10}}, "sku"},
		{"sku with NUL", shippingapp.ListStock{OrganizationID: "org_ship_a", Kind: shipping.KindProduct, SKU: "a\x00b", Page: ports.Page{Take: 10}}, "sku"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := app.Shipping.ListStock.Handle(context.Background(), tt.q)
			domaintest.MatchField(t, err, tt.wantField)
		})
	}
}
