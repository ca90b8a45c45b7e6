package shipping_test

// The events each change records in its unit of work (docs/events.md):
// one per committed change, the record as the change left it, none when
// the change is refused or rolled back.

import (
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestShipmentEventsOfCreateAndCancel(t *testing.T) {
	db := apptest.ShipFixture()
	app, clock := apptest.ShipApp(db, domain.Sandbox)
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
