package warehouse_test

// The events each change records in its unit of work (docs/events.md):
// one per committed change, the record as the change left it, none when
// the change is refused or rolled back.

import (
	"context"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
)

// inventory.received: once per new warehouse receipt, none for its retry.
func TestReceiptEvent(t *testing.T) {
	db := apptest.ShipFixture()
	h := recvHandler(db, apptest.Billing{})
	for range 2 {
		if _, err := h.Handle(context.Background(), recvCommand()); err != nil {
			t.Fatal(err)
		}
	}
	got := db.Recorded()
	apptest.WantEvents(t, got, "inventory.received rcv_1")
	if r := got[0].Data.(*warehouse.Receipt); r.Reference() != "ASN-1" || got[0].OrganizationID != "org_ship_a" || !got[0].Time.Equal(recvT0) {
		t.Fatalf("event %+v", got[0])
	}
}

// shipment.shipped: once per ship, none for its replay, after the created
// event of the same subject.
func TestShippedEvent(t *testing.T) {
	db := apptest.ShipFixture()
	app, clock := apptest.ShipApp(db, domain.Sandbox)
	ship := warehouseapp.NewShipShipmentHandler(db.UoW(), clock, apptest.Billing{})
	id := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	clock.At = apptest.ShipT0.Add(2 * time.Hour)
	for range 2 {
		if _, err := ship.Handle(context.Background(), warehouseapp.ShipShipment{WarehouseID: "wh_a", ShipmentID: id, Carrier: "UPS", TrackingNumber: "1Z"}); err != nil {
			t.Fatal(err)
		}
	}
	got := db.Recorded()
	apptest.WantEvents(t, got, "shipment.created "+id, "shipment.shipped "+id)
	if s := got[1].Data.(*shipping.Shipment); s.Status() != shipping.ShipmentShipped || !got[1].Time.Equal(clock.At) {
		t.Fatalf("shipped event: %s at %v", s.Status(), got[1].Time)
	}
}
