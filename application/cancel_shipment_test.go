package application_test

import (
	"context"
	"errors"
	"testing"
	"time"

	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func shipCancel(app *testApp, org, id string) (*shipping.Shipment, error) {
	return app.Shipping.CancelShipment.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: id})
}

func TestCancelPendingReleasesItsReservation(t *testing.T) {
	db := shipFixture()
	app, clock := shipApp(db, domain.Sandbox)
	keep := shipDraft(t, app, shipSPD(shipLine("ctn_1", 1)))
	id := shipDraft(t, app, shipSPD(shipLine("ctn_1", 4), shipLine("ctn_2", 2)))
	for _, s := range []string{keep, id} {
		if _, err := shipSubmit(app, "org_ship_a", s); err != nil {
			t.Fatal(err)
		}
	}
	clock.now = shipT0.Add(time.Hour)
	s, err := shipCancel(app, "org_ship_a", id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status() != shipping.ShipmentCancelled || !s.UpdatedAt().Equal(clock.now) {
		t.Fatalf("status %s updated %v", s.Status(), s.UpdatedAt())
	}
	if l := db.level("wh_a", "ctn_1"); l.reserved != 1 {
		t.Fatalf("ctn_1 reserved %d, want 1 (the other shipment's)", l.reserved)
	}
	if l := db.level("wh_a", "ctn_2"); l.reserved != 0 {
		t.Fatalf("ctn_2 reserved %d, want 0", l.reserved)
	}
	// What was released can be reserved again.
	again := shipDraft(t, app, shipSPD(shipLine("ctn_1", 4), shipLine("ctn_2", 2)))
	if _, err := shipSubmit(app, "org_ship_a", again); err != nil {
		t.Fatalf("resubmission after cancel: %v", err)
	}
}

func TestCancelDraftReleasesNothing(t *testing.T) {
	db := shipFixture()
	app, _ := shipApp(db, domain.Sandbox)
	pending := shipDraft(t, app, shipSPD(shipLine("ctn_1", 2)))
	if _, err := shipSubmit(app, "org_ship_a", pending); err != nil {
		t.Fatal(err)
	}
	id := shipDraft(t, app, shipSPD(shipLine("ctn_1", 2)))
	if _, err := shipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	if l := db.level("wh_a", "ctn_1"); l.reserved != 2 {
		t.Fatalf("ctn_1 reserved %d, want 2 (cancelling a draft must not release)", l.reserved)
	}
}

func TestCancelRefusals(t *testing.T) {
	db := shipFixture()
	app, _ := shipApp(db, domain.Sandbox)
	id := shipDraft(t, app, shipSPD(shipLine("ctn_1", 1)))
	if _, err := shipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		org, id string
		wantErr error
	}{
		{"cancelled", "org_ship_a", id, domain.ErrInvalidState},
		{"other organization", "org_ship_b", id, domain.ErrNotFound},
		{"unknown", "org_ship_a", "shp_404", domain.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := shipCancel(app, tt.org, tt.id); !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
		})
	}
}
