package warehouse_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

func svcHandler(db *apptest.DB, hooks apptest.Billing) *warehouseapp.RecordWarehouseServiceHandler {
	return warehouseapp.NewRecordWarehouseServiceHandler(apptest.UnitOfWork(db, apptest.WarehouseRepositories), &apptest.Clock{At: recvT0}, &apptest.IDs{}, hooks)
}

func svcCommand() warehouseapp.RecordWarehouseService {
	return warehouseapp.RecordWarehouseService{
		WarehouseID: "wh_a", OrganizationID: "org_ship_a", Reference: "JOB-1", Service: "kitting", QuantityMilli: 1500,
	}
}

// offered is a rate card holding kitting only.
func offered(_ context.Context, _ warehouseports.Repositories, _, code string, _ time.Time) (bool, error) {
	return code == "kitting", nil
}

func TestRecordWarehouseServiceIsIdempotentOnItsReference(t *testing.T) {
	db := apptest.ShipFixture()
	h := svcHandler(db, apptest.Billing{ServiceOffered: offered})
	first, err := h.Handle(context.Background(), svcCommand())
	if err != nil || !first.Created || first.Report.QuantityMilli() != 1500 || !first.Report.PerformedAt().Equal(recvT0) {
		t.Fatalf("first: %+v, %v", first, err)
	}
	again, err := h.Handle(context.Background(), svcCommand())
	if err != nil || again.Created || again.Report.ID() != first.Report.ID() {
		t.Fatalf("retry: %+v, %v", again, err)
	}
	other := svcCommand()
	other.QuantityMilli = 2000
	if _, err := h.Handle(context.Background(), other); !errors.Is(err, warehouse.ErrReferenceConflict) {
		t.Fatalf("other content: %v", err)
	}
	if db.WarehouseServices() != 1 || db.Commits != 2 {
		t.Fatalf("%d services, %d commits; want 1 and 2", db.WarehouseServices(), db.Commits)
	}
}

func TestRecordWarehouseServiceRefuses(t *testing.T) {
	future, past := recvT0.Add(time.Second), recvT0.Add(-time.Hour)
	checkRefusals(t, svcCommand, svcHandler, (*warehouseapp.RecordWarehouseServiceHandler).Handle, func(db *apptest.DB) bool { return db.Commits != 0 || db.WarehouseServices() != 0 }, []refusal[warehouseapp.RecordWarehouseService]{
		{"future performedAt", func(c *warehouseapp.RecordWarehouseService) { c.PerformedAt = &future }, apptest.Billing{}, domain.KindInvalid},
		{"zero quantity", func(c *warehouseapp.RecordWarehouseService) { c.QuantityMilli = 0 }, apptest.Billing{}, domain.KindInvalid},
		{"a warehouse that does not serve the organization", func(c *warehouseapp.RecordWarehouseService) { c.OrganizationID = "org_ship_b" },
			apptest.Billing{}, domain.KindInvalidWarehouse},
		{"not on the rate card", func(c *warehouseapp.RecordWarehouseService) { c.Service = "gift_wrap" },
			apptest.Billing{ServiceOffered: offered}, domain.KindUnknownService},
		{"dated into a closed period", func(c *warehouseapp.RecordWarehouseService) { c.PerformedAt = &past }, apptest.Billing{
			PeriodClosed: func(context.Context, warehouseports.Repositories, string, time.Time) (bool, error) { return true, nil },
		}, domain.KindPeriodClosed},
	})
}

// refusal is a case of a warehouse's report refused: the valid command
// edited, billing's part as the case sets it, and the kind of error.
type refusal[C any] struct {
	name  string
	edit  func(c *C)
	hooks apptest.Billing
	want  domain.Kind
}

// checkRefusals runs a report's refusals on the shipment tests' world,
// each through handle on the handler made of the world and the case's
// hooks: each answers its kind of error, and nothing is written (wrote
// tells).
func checkRefusals[C, H, R any](t *testing.T, command func() C, handler func(*apptest.DB, apptest.Billing) H,
	handle func(H, context.Context, C) (R, error), wrote func(*apptest.DB) bool, cases []refusal[C]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			db := apptest.ShipFixture()
			c := command()
			tt.edit(&c)
			_, err := handle(handler(db, tt.hooks), context.Background(), c)
			if got := application.KindOf(err); got != tt.want {
				t.Fatalf("error %v (%s), want %s", err, got, tt.want)
			}
			if wrote(db) {
				t.Fatal("a refused report wrote")
			}
		})
	}
}
