package shipping_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

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
