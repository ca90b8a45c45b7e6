package warehouse_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	"github.com/acme3pl/fulfillment/adapters/system"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	whside "github.com/acme3pl/fulfillment/domain/warehouse"
)

func TestServiceRepositoryIsIdempotentOnItsReference(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	db := pgtest.Pool(t, testDSN, 2)
	repos := postgres.NewRepositories(db, pgwarehouse.Repositories)
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 9, 30, 0, 125_000_000, time.UTC)
	mk := func(id string, milli int64) *whside.ServiceRecord {
		s, err := whside.NewServiceRecord(id, time.Now(), whside.ServiceReport{
			WarehouseID: w.wh, OrganizationID: w.org, Reference: "JOB-1", Service: "labor_hour",
			QuantityMilli: milli, PerformedAt: &at, Note: "night shift ✓",
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := mk(w.org+"_svc_1", 1500)
	stored, created, err := repos.WarehouseServices.Create(ctx, first)
	if err != nil || !created || stored != first {
		t.Fatalf("create: %v, %v", created, err)
	}
	stored, created, err = repos.WarehouseServices.Create(ctx, mk(w.org+"_svc_2", 2000))
	if err != nil || created {
		t.Fatalf("second create: created %v, %v", created, err)
	}
	if !reflect.DeepEqual(stored, first) {
		t.Fatalf("read back\n%+v\nwant\n%+v", stored, first)
	}
	// Another warehouse's reference is its own; a warehouse that does not
	// serve the organization is refused by the database too.
	other, _ := whside.NewServiceRecord(w.org+"_svc_3", time.Now(), whside.ServiceReport{
		WarehouseID: w.other, OrganizationID: w.org, Reference: "JOB-1", Service: "kitting", QuantityMilli: 1,
	})
	if _, _, err := repos.WarehouseServices.Create(ctx, other); err == nil || errors.Is(err, domain.ErrConflict) {
		t.Fatalf("a warehouse that does not serve the organization: %v, want a foreign key violation", err)
	}
}

// Services with one reference racing on several pools: one record, every
// answer the same one.
func TestServicesWithOneReferenceRacing(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	const instances, each = 3, 6
	var calls []func() (warehouseapp.ServiceResult, error)
	for range instances {
		uc := warehouseapp.NewRecordWarehouseServiceHandler(postgres.NewUnitOfWork(pgtest.Pool(t, testDSN, 3), pgwarehouse.Repositories), system.Clock{}, system.IDs{},
			noBilling{})
		for range each {
			calls = append(calls, func() (warehouseapp.ServiceResult, error) {
				return uc.Handle(context.Background(), warehouseapp.RecordWarehouseService{
					WarehouseID: w.wh, OrganizationID: w.org, Reference: "JOB-RACE", Service: "kitting", QuantityMilli: 2500,
				})
			})
		}
	}
	created := pgtest.RunSame(t, "service", calls, func(r warehouseapp.ServiceResult) bool { return r.Created },
		func(r warehouseapp.ServiceResult) string { return r.Report.ID() })
	stored := pgtest.ScanQuery[int](t, pgtest.Pool(t, testDSN, 1), "SELECT count(*) FROM warehouse_services WHERE organization_id = ?", w.org)
	if created != 1 || stored != 1 {
		t.Fatalf("%d created, %d stored; want 1 and 1", created, stored)
	}
}
