package application_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	"github.com/acme3pl/fulfillment/domain"
)

// TestCheckPrincipal: an organization must exist; a warehouse must exist
// and be active.
func TestCheckPrincipal(t *testing.T) {
	db := apptest.NewDB()
	db.State.Orgs["org_a"] = domain.Organization{ID: "org_a", Name: "A"}
	db.AddWarehouse("wh_on", "On", true, "org_a")
	db.AddWarehouse("wh_off", "Off", false, "org_a")
	app := apptest.NewApp(db, domain.Sandbox, &apptest.Clock{At: time.Now()}, noop.NewTracerProvider().Tracer("test"))
	for q, want := range map[application.CheckPrincipal]error{
		{OrganizationID: "org_a"}:                       nil,
		{OrganizationID: "org_none"}:                    domain.ErrNotFound,
		{OrganizationID: "' OR 1=1"}:                    domain.ErrNotFound,
		{WarehouseID: "wh_on"}:                          nil,
		{WarehouseID: "wh_off"}:                         domain.ErrNotFound,
		{WarehouseID: "wh_none"}:                        domain.ErrNotFound,
		{OrganizationID: "org_a", WarehouseID: "wh_on"}: nil, // checked below: a validation error
	} {
		_, err := app.CheckPrincipal.Handle(context.Background(), q)
		if q.OrganizationID != "" && q.WarehouseID != "" {
			var ve *domain.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("%+v: %v, want a validation error", q, err)
			}
			continue
		}
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("%+v: %v, want %v", q, err, want)
		}
	}
}
