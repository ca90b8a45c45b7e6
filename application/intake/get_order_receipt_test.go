package intake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/acme3pl/fulfillment/application/apptest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
)

func TestGetOrderReceipt(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	if _, err := receive(t, app, apptest.IntakeOrder(80, apptest.IntakeLine(1, "TEE", 1))); err != nil {
		t.Fatal(err)
	}
	rec, err := app.Intake.GetOrderReceipt.Handle(context.Background(), intakeapp.GetOrderReceipt{OrganizationID: apptest.IntakeOrg, OrderID: 80})
	if err != nil || rec.OrderID() != 80 || rec.Status() != intake.ReceiptSucceeded {
		t.Fatalf("%+v, %v", rec, err)
	}
	for _, q := range []intakeapp.GetOrderReceipt{{OrganizationID: apptest.IntakeOrg, OrderID: 81}, {OrganizationID: "org_other", OrderID: 80}} {
		if _, err := app.Intake.GetOrderReceipt.Handle(context.Background(), q); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("%+v: error %v, want not found", q, err)
		}
	}
}
