package shipping_test

import (
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestCancelPendingReleasesItsReservation(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1))) // kept
	id := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 4), apptest.ShipLine("ctn_2", 2)))
	clock.At = apptest.ShipT0.Add(time.Hour)
	s, err := apptest.ShipCancel(app, "org_ship_a", id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status() != shipping.ShipmentCancelled || !s.UpdatedAt().Equal(clock.At) {
		t.Fatalf("status %s updated %v", s.Status(), s.UpdatedAt())
	}
	db.WantReserved(t, "wh_a", "ctn_1", 1, "(the other shipment's)")
	db.WantReserved(t, "wh_a", "ctn_2", 0, "")
	// What was released can be reserved again.
	again := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 4), apptest.ShipLine("ctn_2", 2)))
	if _, err := apptest.ShipSubmit(app, "org_ship_a", again); err != nil {
		t.Fatalf("resubmission after cancel: %v", err)
	}
}

func TestCancelDraftReleasesNothing(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 2)))
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 2)))
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	db.WantReserved(t, "wh_a", "ctn_1", 2, "(cancelling a draft must not release)")
}

func TestCancelRefusals(t *testing.T) {
	_, app, _ := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	checkShipRefusals(t, nil, func(org, id string) error { _, err := apptest.ShipCancel(app, org, id); return err }, []shipRefusal{
		{"cancelled", "org_ship_a", id, domain.ErrInvalidState},
		{"other organization", "org_ship_b", id, domain.ErrNotFound},
		{"unknown", "org_ship_a", "shp_404", domain.ErrNotFound},
	})
}

// The events each change records in its unit of work (docs/events.md):
// one per committed change, the record as the change left it, none when
// the change is refused or rolled back.
func TestShipmentEventsOfCreateAndCancel(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	clock.At = apptest.ShipT0.Add(time.Hour)
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	// A refused change records nothing: cancelling again.
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("second cancel: %v", err)
	}
	got := db.Recorded()
	apptest.WantEvents(t, got, "shipment.created "+id, "shipment.cancelled "+id)
	created, cancelled := got[0].Data.(*shipping.Shipment), got[1].Data.(*shipping.Shipment)
	if created.Status() != shipping.ShipmentDraft || cancelled.Status() != shipping.ShipmentCancelled {
		t.Fatalf("data: %s then %s", created.Status(), cancelled.Status())
	}
	if !got[1].Time.Equal(clock.At) || got[1].OrganizationID != "org_ship_a" || !cancelled.UpdatedAt().Equal(clock.At) {
		t.Fatalf("cancelled event %+v", got[1])
	}
}
