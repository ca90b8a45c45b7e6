package shipping_test

import (
	"context"
	"testing"

	"github.com/acme3pl/fulfillment/application/apptest"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
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
