package intake_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The use case's span says what each delivery came to (a payload refused
// before processing is RefuseStorefrontOrder's); a failed delivery has no
// outcome, only the span's error status.
func TestReceiveStorefrontOrderSpanOutcome(t *testing.T) {
	st, app, rec := tracedIntake()
	deliver := func(o intake.StorefrontOrder, refused error) {
		if refused != nil {
			_, _ = app.Intake.RefuseStorefrontOrder.Handle(context.Background(), intakeapp.RefuseStorefrontOrder{OrganizationID: apptest.IntakeOrg, OrderID: o.ID})
			return
		}
		_, _ = app.Intake.ReceiveStorefrontOrder.Handle(context.Background(), intakeapp.ReceiveStorefrontOrder{OrganizationID: apptest.IntakeOrg, Order: o})
	}
	created := apptest.IntakeOrder(1, apptest.IntakeLine(1, "TEE", 1))
	cancelled := apptest.IntakeOrder(2, apptest.IntakeLine(1, "TEE", 1))
	cancelled.Cancelled = true
	deliver(created, nil)
	deliver(created, nil)
	deliver(cancelled, nil)
	deliver(apptest.IntakeOrder(3, apptest.IntakeLine(1, "NOPE", 1)), nil)
	deliver(apptest.IntakeOrder(4), domain.Invalid("line_items", "is required"))
	st.Down = true
	deliver(apptest.IntakeOrder(5, apptest.IntakeLine(1, "TEE", 1)), nil)

	want := []string{"created", "duplicate", "skipped", "refused", "refused", ""}
	var got []string
	for _, s := range rec.Ended() {
		if s.Name() != "ReceiveStorefrontOrder" && s.Name() != "RefuseStorefrontOrder" {
			continue
		}
		outcome := ""
		for _, kv := range s.Attributes() {
			if kv.Key == intakeapp.IntakeOutcomeKey {
				outcome = kv.Value.AsString()
			}
		}
		got = append(got, outcome)
	}
	if len(got) != len(want) {
		t.Fatalf("outcomes %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("delivery %d: outcome %q, want %q (all: %q)", i+1, got[i], want[i], got)
		}
	}
}

// The events each change records in its unit of work (docs/events.md):
// one per committed change, the record as the change left it, none when
// the change is refused or rolled back.
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
	if _, err := receive(t, app, apptest.IntakeOrder(3, apptest.IntakeLine(1, "NOPE", 1))); application.KindOf(err) != domain.KindUnknownSKUs {
		t.Fatalf("unknown SKU: %v", err)
	}
	if _, err := receive(t, app, apptest.IntakeOrder(4, apptest.IntakeLine(1, "SOCK-1", 0))); application.KindOf(err) != domain.KindInvalid {
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
