package shipping_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

func TestGetShipmentIsScopedToTheOrganization(t *testing.T) {
	_, app, _ := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	tests := []struct {
		name    string
		org, id string
		wantErr error
	}{
		{"own", "org_ship_a", id, nil},
		{"other organization", "org_ship_b", id, domain.ErrNotFound},
		{"unknown", "org_ship_a", "shp_404", domain.ErrNotFound},
		{"not an ID", "org_ship_a", "shp\x00", domain.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := app.Shipping.GetShipment.Handle(context.Background(), shippingapp.GetShipment{OrganizationID: tt.org, ShipmentID: tt.id})
			if tt.wantErr == nil {
				if err != nil || s.ID() != id {
					t.Fatalf("got %v, %v", s, err)
				}
				return
			}
			domaintest.MatchErr(t, err, tt.wantErr)
		})
	}
}

func TestListShipmentsNewestFirstWithStatusFilter(t *testing.T) {
	_, app, clock := apptest.ShipSandbox()
	var ids []string
	for i := range 4 {
		clock.At = apptest.ShipT0.Add(time.Duration(i) * time.Minute)
		ids = append(ids, apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1))))
	}
	if _, err := apptest.ShipSubmit(app, "org_ship_a", ids[1]); err != nil {
		t.Fatal(err)
	}
	list := func(status shipping.ShipmentStatus, page ports.Page) ([]string, bool) {
		t.Helper()
		res, err := app.Shipping.ListShipments.Handle(context.Background(),
			shippingapp.ListShipments{OrganizationID: "org_ship_a", Status: status, Page: page})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(res.Items))
		for i, s := range res.Items {
			out[i] = s.ID()
		}
		return out, res.More
	}
	tests := []struct {
		name     string
		status   shipping.ShipmentStatus
		page     ports.Page
		want     []string
		wantMore bool
	}{
		{"all", "", ports.Page{Take: 10}, []string{ids[3], ids[2], ids[1], ids[0]}, false},
		{"first page", "", ports.Page{Take: 3}, []string{ids[3], ids[2], ids[1]}, true},
		{"second page", "", ports.Page{Skip: 3, Take: 3}, []string{ids[0]}, false},
		{"drafts", shipping.ShipmentDraft, ports.Page{Take: 10}, []string{ids[3], ids[2], ids[0]}, false},
		{"pending", shipping.ShipmentPending, ports.Page{Take: 10}, []string{ids[1]}, false},
		{"cancelled", shipping.ShipmentCancelled, ports.Page{Take: 10}, []string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := list(tt.status, tt.page)
			if !reflect.DeepEqual(got, tt.want) || more != tt.wantMore {
				t.Fatalf("got %v (more %v), want %v (more %v)", got, more, tt.want, tt.wantMore)
			}
		})
	}
}

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
