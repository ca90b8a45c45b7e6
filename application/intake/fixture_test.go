package intake_test

// The intake tests' world and how they deliver an order.

import (
	"context"
	"fmt"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/acme3pl/fulfillment/application/apptest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
)

// intakeFixture is an organization with two active warehouses (default
// wh_b), one inactive, and three products.
func intakeFixture() *apptest.DB {
	st := apptest.NewDB()
	st.State.Orgs[apptest.IntakeOrg] = domain.Organization{ID: apptest.IntakeOrg, Name: "Intake", DefaultWarehouseID: "wh_b"}
	st.AddWarehouse("wh_a", "Alpha", true, apptest.IntakeOrg)
	st.AddWarehouse("wh_b", "Bravo", true, apptest.IntakeOrg)
	st.AddWarehouse("wh_0", "Aardvark", false, apptest.IntakeOrg)
	st.AddProduct(apptest.IntakeOrg, "prod_sock", "SOCK-1")
	st.AddProduct(apptest.IntakeOrg, "prod_key", "KEY-LTH-01")
	st.AddProduct(apptest.IntakeOrg, "prod_tee", "TEE")
	return st
}

// tracedIntake is intakeFixture's world and its application, whose spans
// rec keeps in memory.
func tracedIntake() (st *apptest.DB, app *apptest.App, rec *tracetest.SpanRecorder) {
	st = intakeFixture()
	rec = tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	return st, apptest.IntakeAppTraced(st, domain.Sandbox, tp.Tracer("test")), rec
}

// receive delivers o as the HTTP adapter does: the domain checks the order
// (intake.StorefrontOrder.Check); a refused one is recorded
// (RefuseStorefrontOrder), a checked one processed (ReceiveStorefrontOrder).
func receive(t *testing.T, app *apptest.App, o intake.StorefrontOrder) (intakeapp.StorefrontOrderResult, error) {
	t.Helper()
	return deliverOrder(app, o, fmt.Sprintf("trace-%d", o.ID), nil)
}

// deliverOrder is receive with a trace ID and a body.
func deliverOrder(app *apptest.App, o intake.StorefrontOrder, trace string, body []byte) (intakeapp.StorefrontOrderResult, error) {
	if err := o.Check(); err != nil {
		if o.ID > 0 {
			_, _ = app.Intake.RefuseStorefrontOrder.Handle(context.Background(), intakeapp.RefuseStorefrontOrder{
				OrganizationID: apptest.IntakeOrg, TraceID: trace, OrderID: o.ID, OrderNumber: o.OrderNumber, Body: body})
		}
		return intakeapp.StorefrontOrderResult{}, err
	}
	return app.Intake.ReceiveStorefrontOrder.Handle(context.Background(),
		intakeapp.ReceiveStorefrontOrder{OrganizationID: apptest.IntakeOrg, TraceID: trace, Order: o, Body: body})
}
