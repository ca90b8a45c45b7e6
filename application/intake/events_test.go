package intake_test

// The events each change records in its unit of work (docs/events.md):
// one per committed change, the record as the change left it, none when
// the change is refused or rolled back.

import (
	"errors"
	"fmt"
	"testing"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestIntakeEvents(t *testing.T) {
	db := intakeFixture()
	app := apptest.IntakeApp(db, domain.Sandbox)
	res, err := receive(t, app, apptest.IntakeOrder(1, apptest.IntakeLine(1, "SOCK-1", 2)))
	if err != nil {
		t.Fatal(err)
	}
	// A duplicate and a skipped order record nothing.
	if _, err := receive(t, app, apptest.IntakeOrder(1, apptest.IntakeLine(1, "SOCK-1", 2))); err != nil {
		t.Fatal(err)
	}
	skipped := apptest.IntakeOrder(2, apptest.IntakeLine(1, "SOCK-1", 2))
	skipped.Cancelled = true
	if _, err := receive(t, app, skipped); err != nil {
		t.Fatal(err)
	}
	// Refused in the transaction (unknown SKU), and before it (a bad
	// quantity): each a storefront_order.failed of the receipt as stored.
	if _, err := receive(t, app, apptest.IntakeOrder(3, apptest.IntakeLine(1, "NOPE", 1))); application.KindOf(err) != application.KindUnknownSKUs {
		t.Fatalf("unknown SKU: %v", err)
	}
	if _, err := receive(t, app, apptest.IntakeOrder(4, apptest.IntakeLine(1, "SOCK-1", 0))); application.KindOf(err) != application.KindInvalid {
		t.Fatalf("bad quantity: %v", err)
	}
	got := db.Recorded()
	apptest.WantEvents(t, got, "shipment.created "+res.ShipmentID, "storefront_order.failed 3", "storefront_order.failed 4")
	if s := got[0].Data.(*shipping.Shipment); s.Status() != shipping.ShipmentPending || got[0].OrganizationID != apptest.IntakeOrg {
		t.Fatalf("shipment.created data: %s of %s", s.Status(), got[0].OrganizationID)
	}
	for i, order := range []int64{3, 4} {
		rec := got[1+i].Data.(*intake.OrderReceipt)
		stored, _ := db.Receipt(apptest.IntakeOrg, order)
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
	db.FailCreate = fmt.Errorf("store: %w", domain.ErrUnavailable)
	app := apptest.IntakeApp(db, domain.Sandbox)
	if _, err := receive(t, app, apptest.IntakeOrder(7, apptest.IntakeLine(1, "SOCK-1", 1))); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("receive: %v", err)
	}
	apptest.WantEvents(t, db.Recorded(), "storefront_order.failed 7")
}
