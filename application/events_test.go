package application_test

// The events each change records in its unit of work (docs/events.md):
// one per committed change, the record as the change left it, none when
// the change is refused or rolled back.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
)

// wantEvents compares the recorded events' types and subjects.
func wantEvents(t *testing.T, got []ports.Event, want ...string) {
	t.Helper()
	var gotS []string
	for _, e := range got {
		gotS = append(gotS, string(e.Type)+" "+e.Subject)
	}
	if fmt.Sprint(gotS) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", gotS, want)
	}
}

func TestShipmentEventsOfCreateAndCancel(t *testing.T) {
	db := shipFixture()
	app, clock := shipApp(db, domain.Sandbox)
	id := shipDraft(t, app, shipSPD(shipLine("ctn_1", 1)))
	clock.now = shipT0.Add(time.Hour)
	if _, err := shipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	// A refused change records nothing: cancelling again.
	if _, err := shipCancel(app, "org_ship_a", id); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("second cancel: %v", err)
	}
	got := db.recorded()
	wantEvents(t, got, "shipment.created "+id, "shipment.cancelled "+id)
	created, cancelled := got[0].Data.(*shipping.Shipment), got[1].Data.(*shipping.Shipment)
	if created.Status() != shipping.ShipmentDraft || cancelled.Status() != shipping.ShipmentCancelled {
		t.Fatalf("data: %s then %s", created.Status(), cancelled.Status())
	}
	if !got[1].Time.Equal(clock.now) || got[1].OrganizationID != "org_ship_a" || !cancelled.UpdatedAt().Equal(clock.now) {
		t.Fatalf("cancelled event %+v", got[1])
	}
}

func TestIntakeEvents(t *testing.T) {
	db := intakeFixture()
	app := intakeApp(db, domain.Sandbox)
	res, err := receive(t, app, intakeOrder(1, intakeLine(1, "SOCK-1", 2)))
	if err != nil {
		t.Fatal(err)
	}
	// A duplicate and a skipped order record nothing.
	if _, err := receive(t, app, intakeOrder(1, intakeLine(1, "SOCK-1", 2))); err != nil {
		t.Fatal(err)
	}
	skipped := intakeOrder(2, intakeLine(1, "SOCK-1", 2))
	skipped.Cancelled = true
	if _, err := receive(t, app, skipped); err != nil {
		t.Fatal(err)
	}
	// Refused in the transaction (unknown SKU), and before it (a bad
	// quantity): each a storefront_order.failed of the receipt as stored.
	if _, err := receive(t, app, intakeOrder(3, intakeLine(1, "NOPE", 1))); application.KindOf(err) != application.KindUnknownSKUs {
		t.Fatalf("unknown SKU: %v", err)
	}
	if _, err := receive(t, app, intakeOrder(4, intakeLine(1, "SOCK-1", 0))); application.KindOf(err) != application.KindInvalid {
		t.Fatalf("bad quantity: %v", err)
	}
	got := db.recorded()
	wantEvents(t, got, "shipment.created "+res.ShipmentID, "storefront_order.failed 3", "storefront_order.failed 4")
	if s := got[0].Data.(*shipping.Shipment); s.Status() != shipping.ShipmentPending || got[0].OrganizationID != intakeOrg {
		t.Fatalf("shipment.created data: %s of %s", s.Status(), got[0].OrganizationID)
	}
	for i, order := range []int64{3, 4} {
		rec := got[1+i].Data.(*intake.OrderReceipt)
		stored, _ := db.receipt(intakeOrg, order)
		if rec.Status() != intake.ReceiptFailed || rec.Attempts() != stored.Attempts() || rec.LastError() != stored.LastError() {
			t.Fatalf("order %d: event's receipt %s/%d/%s, stored %s/%d/%s", order, rec.Status(), rec.Attempts(), rec.LastError(),
				stored.Status(), stored.Attempts(), stored.LastError())
		}
	}
}

// A delivery whose transaction fails records no shipment.created: the
// failure it records afterwards is the only event.
func TestIntakeRolledBackRecordsOnlyTheFailure(t *testing.T) {
	db := intakeFixture()
	db.failCreate = fmt.Errorf("store: %w", domain.ErrUnavailable)
	app := intakeApp(db, domain.Sandbox)
	if _, err := receive(t, app, intakeOrder(7, intakeLine(1, "SOCK-1", 1))); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("receive: %v", err)
	}
	wantEvents(t, db.recorded(), "storefront_order.failed 7")
}

// inventory.received: once per new warehouse receipt, none for its retry.
func TestReceiptEvent(t *testing.T) {
	db := shipFixture()
	h := recvHandler(db, fakeBilling{})
	for range 2 {
		if _, err := h.Handle(context.Background(), recvCommand()); err != nil {
			t.Fatal(err)
		}
	}
	got := db.recorded()
	wantEvents(t, got, "inventory.received rcv_1")
	if r := got[0].Data.(*warehouse.Receipt); r.Reference() != "ASN-1" || got[0].OrganizationID != "org_ship_a" || !got[0].Time.Equal(recvT0) {
		t.Fatalf("event %+v", got[0])
	}
}

// shipment.shipped: once per ship, none for its replay, after the created
// event of the same subject.
func TestShippedEvent(t *testing.T) {
	db := shipFixture()
	app, clock := shipApp(db, domain.Sandbox)
	ship := warehouseapp.NewShipShipmentHandler(fakeUoW{db}, clock, fakeBilling{})
	id := shipPending(t, app, shipSPD(shipLine("ctn_1", 1)))
	clock.now = shipT0.Add(2 * time.Hour)
	for range 2 {
		if _, err := ship.Handle(context.Background(), warehouseapp.ShipShipment{WarehouseID: "wh_a", ShipmentID: id, Carrier: "UPS", TrackingNumber: "1Z"}); err != nil {
			t.Fatal(err)
		}
	}
	got := db.recorded()
	wantEvents(t, got, "shipment.created "+id, "shipment.shipped "+id)
	if s := got[1].Data.(*shipping.Shipment); s.Status() != shipping.ShipmentShipped || !got[1].Time.Equal(clock.now) {
		t.Fatalf("shipped event: %s at %v", s.Status(), got[1].Time)
	}
}
