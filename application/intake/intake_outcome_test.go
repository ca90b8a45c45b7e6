package intake_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/acme3pl/fulfillment/application/apptest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
)

// The use case's span says what each delivery came to (a payload refused
// before processing is RefuseStorefrontOrder's); a failed delivery has no
// outcome, only the span's error status.
func TestReceiveStorefrontOrderSpanOutcome(t *testing.T) {
	st := intakeFixture()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	app := apptest.IntakeAppTraced(st, domain.Sandbox, tp.Tracer("test"))
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
