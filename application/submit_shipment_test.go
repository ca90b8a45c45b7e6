package application_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// draft creates a draft through the use case and returns its ID.
func shipDraft(t *testing.T, app *testApp, c shippingapp.CreateShipment) string {
	t.Helper()
	s, err := app.Shipping.CreateShipment.Handle(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

func shipSubmit(app *testApp, org, id string) (*shipping.Shipment, error) {
	return app.Shipping.SubmitShipment.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: id})
}

func TestSubmitSPDReservesCartons(t *testing.T) {
	db := shipFixture()
	app, clock := shipApp(db, domain.Sandbox)
	id := shipDraft(t, app, shipSPD(shipLine("ctn_1", 3), shipLine("ctn_2", 2)))
	clock.now = shipT0.Add(time.Minute)
	s, err := shipSubmit(app, "org_ship_a", id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status() != shipping.ShipmentPending || s.SubmittedAt() == nil || !s.SubmittedAt().Equal(clock.now) || !s.UpdatedAt().Equal(clock.now) {
		t.Fatalf("status %s submitted %v updated %v", s.Status(), s.SubmittedAt(), s.UpdatedAt())
	}
	if l := db.level("wh_a", "ctn_1"); l != (stockLevel{onHand: 5, reserved: 3}) {
		t.Fatalf("ctn_1 %+v, want 5 on hand, 3 reserved", l)
	}
	if l := db.level("wh_a", "ctn_2"); l != (stockLevel{onHand: 2, reserved: 2}) {
		t.Fatalf("ctn_2 %+v, want 2 on hand, 2 reserved", l)
	}
	// The last two cartons of ctn_1 fit; a third does not.
	fits := shipDraft(t, app, shipSPD(shipLine("ctn_1", 2)))
	short := shipDraft(t, app, shipSPD(shipLine("ctn_1", 1)))
	if _, err := shipSubmit(app, "org_ship_a", fits); err != nil {
		t.Fatal(err)
	}
	var ise *shipping.InsufficientStockError
	if _, err := shipSubmit(app, "org_ship_a", short); !errors.As(err, &ise) {
		t.Fatalf("third submission: %v, want insufficient stock", err)
	}
}

func TestSubmitShortSPDReservesNothing(t *testing.T) {
	db := shipFixture()
	app, _ := shipApp(db, domain.Sandbox)
	id := shipDraft(t, app, shipSPD(shipLine("ctn_2", 3), shipLine("ctn_1", 5)))
	otherDraft := shipDraft(t, app, shipSPD(shipLine("ctn_1", 1)))
	if _, err := shipSubmit(app, "org_ship_a", otherDraft); err != nil {
		t.Fatal(err)
	}
	_, err := shipSubmit(app, "org_ship_a", id)
	var ise *shipping.InsufficientStockError
	if !errors.As(err, &ise) {
		t.Fatalf("error %v, want *InsufficientStockError", err)
	}
	want := []shipping.StockShortage{
		{ItemID: "ctn_2", SKU: "CTN-MUG-12", Requested: 3, Available: 2},
		{ItemID: "ctn_1", SKU: "CTN-TEE-24", Requested: 5, Available: 4},
	}
	got := append([]shipping.StockShortage(nil), ise.Items...)
	if len(got) == 2 && got[0].ItemID == "ctn_1" {
		got[0], got[1] = got[1], got[0]
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shortages %+v, want %+v", ise.Items, want)
	}
	if l := db.level("wh_a", "ctn_1"); l.reserved != 1 {
		t.Fatalf("ctn_1 reserved %d, want 1 (the other draft's)", l.reserved)
	}
	if l := db.level("wh_a", "ctn_2"); l.reserved != 0 {
		t.Fatalf("ctn_2 reserved %d, want 0", l.reserved)
	}
	s, err := app.Shipping.GetShipment.Handle(context.Background(), shippingapp.GetShipment{OrganizationID: "org_ship_a", ShipmentID: id})
	if err != nil || s.Status() != shipping.ShipmentDraft || s.SubmittedAt() != nil {
		t.Fatalf("after a short submission: %v, %v; want an unchanged draft", s, err)
	}
}

func TestSubmitPickPackReservesWithoutACheck(t *testing.T) {
	db := shipFixture()
	app, _ := shipApp(db, domain.Sandbox)
	id := shipDraft(t, app, shipPickPack(shipLine("prod_1", 7)))
	if _, err := shipSubmit(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	if l := db.level("wh_a", "prod_1"); l != (stockLevel{onHand: 0, reserved: 7}) {
		t.Fatalf("prod_1 %+v, want a backorder of 7", l)
	}
}

func TestSubmitRefusals(t *testing.T) {
	db := shipFixture()
	app, _ := shipApp(db, domain.Sandbox)
	pending := shipDraft(t, app, shipSPD(shipLine("ctn_1", 1)))
	if _, err := shipSubmit(app, "org_ship_a", pending); err != nil {
		t.Fatal(err)
	}
	cancelled := shipDraft(t, app, shipSPD(shipLine("ctn_1", 1)))
	if _, err := app.Shipping.CancelShipment.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: "org_ship_a", ShipmentID: cancelled}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		org, id string
		wantErr error
	}{
		{"pending", "org_ship_a", pending, domain.ErrInvalidState},
		{"cancelled", "org_ship_a", cancelled, domain.ErrInvalidState},
		{"other organization", "org_ship_b", pending, domain.ErrNotFound},
		{"unknown", "org_ship_a", "shp_404", domain.ErrNotFound},
		{"not an ID", "org_ship_a", "../x", domain.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commits := db.commits
			if _, err := shipSubmit(app, tt.org, tt.id); !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if db.commits != commits {
				t.Fatal("a refused submission committed")
			}
		})
	}
	if l := db.level("wh_a", "ctn_1"); l.reserved != 1 {
		t.Fatalf("ctn_1 reserved %d, want 1", l.reserved)
	}
}
