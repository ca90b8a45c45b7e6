package postgres_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
)

func TestServiceRepositoryIsIdempotentOnItsReference(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	db := shipDB(t, 2)
	repos := postgres.NewRepositories(db)
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 9, 30, 0, 125_000_000, time.UTC)
	mk := func(id string, milli int64) *domain.ServiceRecord {
		s, err := domain.NewServiceRecord(domain.NewServiceRecordParams{
			ID: id, WarehouseID: w.wh, OrganizationID: w.org, Reference: "JOB-1", Service: "labor_hour",
			QuantityMilli: milli, PerformedAt: &at, Note: "night shift ✓", Now: time.Now(),
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
	other, _ := domain.NewServiceRecord(domain.NewServiceRecordParams{
		ID: w.org + "_svc_3", WarehouseID: w.other, OrganizationID: w.org, Reference: "JOB-1", Service: "kitting",
		QuantityMilli: 1, Now: time.Now(),
	})
	if _, _, err := repos.WarehouseServices.Create(ctx, other); err == nil || errors.Is(err, domain.ErrConflict) {
		t.Fatalf("a warehouse that does not serve the organization: %v, want a foreign key violation", err)
	}
}
