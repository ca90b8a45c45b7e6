package shipping_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestSubmitSPDReservesCartons(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 3), apptest.ShipLine("ctn_2", 2)))
	clock.At = apptest.ShipT0.Add(time.Minute)
	s, err := apptest.ShipSubmit(app, "org_ship_a", id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status() != shipping.ShipmentPending || s.SubmittedAt() == nil || !s.SubmittedAt().Equal(clock.At) || !s.UpdatedAt().Equal(clock.At) {
		t.Fatalf("status %s submitted %v updated %v", s.Status(), s.SubmittedAt(), s.UpdatedAt())
	}
	db.WantLevel(t, "wh_a", "ctn_1", apptest.StockLevel{OnHand: 5, Reserved: 3}, "5 on hand, 3 reserved")
	db.WantLevel(t, "wh_a", "ctn_2", apptest.StockLevel{OnHand: 2, Reserved: 2}, "2 on hand, 2 reserved")
	// The last two cartons of ctn_1 fit; a third does not.
	fits := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 2)))
	short := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	if _, err := apptest.ShipSubmit(app, "org_ship_a", fits); err != nil {
		t.Fatal(err)
	}
	var ise *shipping.InsufficientStockError
	if _, err := apptest.ShipSubmit(app, "org_ship_a", short); !errors.As(err, &ise) {
		t.Fatalf("third submission: %v, want insufficient stock", err)
	}
}

func TestSubmitShortSPDReservesNothing(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_2", 3), apptest.ShipLine("ctn_1", 5)))
	apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	_, err := apptest.ShipSubmit(app, "org_ship_a", id)
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
	db.WantReserved(t, "wh_a", "ctn_1", 1, "(the other draft's)")
	db.WantReserved(t, "wh_a", "ctn_2", 0, "")
	s, err := app.Shipping.GetShipment.Handle(context.Background(), shippingapp.GetShipment{OrganizationID: "org_ship_a", ShipmentID: id})
	if err != nil || s.Status() != shipping.ShipmentDraft || s.SubmittedAt() != nil {
		t.Fatalf("after a short submission: %v, %v; want an unchanged draft", s, err)
	}
}

func TestSubmitPickPackReservesWithoutACheck(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	apptest.ShipPending(t, app, apptest.ShipPickPack(apptest.ShipLine("prod_1", 7)))
	db.WantLevel(t, "wh_a", "prod_1", apptest.StockLevel{OnHand: 0, Reserved: 7}, "a backorder of 7")
}

func TestSubmitRefusals(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	pending := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	cancelled := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	if _, err := app.Shipping.CancelShipment.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: "org_ship_a", ShipmentID: cancelled}); err != nil {
		t.Fatal(err)
	}
	checkShipRefusals(t, db, func(org, id string) error { _, err := apptest.ShipSubmit(app, org, id); return err }, []shipRefusal{
		{"pending", "org_ship_a", pending, domain.ErrInvalidState},
		{"cancelled", "org_ship_a", cancelled, domain.ErrInvalidState},
		{"other organization", "org_ship_b", pending, domain.ErrNotFound},
		{"unknown", "org_ship_a", "shp_404", domain.ErrNotFound},
		{"not an ID", "org_ship_a", "../x", domain.ErrNotFound},
	})
	db.WantReserved(t, "wh_a", "ctn_1", 1, "")
}

// shipRefusal is a command on a shipment refused: who asks, for which
// shipment, and the error.
type shipRefusal struct {
	name    string
	org, id string
	wantErr error
}

// checkShipRefusals runs do for each case: it answers the case's error
// (errors.Is) and, when db is given, commits nothing.
func checkShipRefusals(t *testing.T, db *apptest.DB, do func(org, id string) error, cases []shipRefusal) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var commits int
			if db != nil {
				commits = db.Commits
			}
			domaintest.MatchErr(t, do(tt.org, tt.id), tt.wantErr)
			if db != nil && db.Commits != commits {
				t.Fatal("a refused command committed")
			}
		})
	}
}
