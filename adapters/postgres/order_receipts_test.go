package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgintake "github.com/acme3pl/fulfillment/adapters/postgres/intake"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/adapters/system"
	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// intakeOrgID returns an organization ID of this file's own, unique per
// call, so that tests sharing the package database never see each other.
func intakeOrgID(t *testing.T) string {
	t.Helper()
	var b [5]byte
	_, _ = rand.Read(b[:])
	return "org_intake_" + hex.EncodeToString(b[:])
}

// intakeSeed stores an organization with a default warehouse, a second
// warehouse, and products SKU-1..SKU-n (IDs <org>_p<i>).
func intakeSeed(t *testing.T, org string, products int) {
	t.Helper()
	wh := func(id, name string) fixtureports.Warehouse {
		return fixtureports.Warehouse{Warehouse: domain.Warehouse{
			ID: id, Name: name, Active: true,
			Address: domain.Address{Name: name, Line1: "1 Dock St", City: "Newark", State: "NJ", CountryCode: "US", PostalCode: "07102"},
			Contact: domain.Contact{Name: "Ops", Email: "ops@example.com", PhoneNumber: "+1 555 0100"},
			Tags:    []string{},
		}, Organizations: []string{org}}
	}
	f := fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: org, Name: "Intake", DefaultWarehouseID: org + "_wh2"}},
		Warehouses:    []fixtureports.Warehouse{wh(org+"_wh1", "Alpha"), wh(org+"_wh2", "Zulu")},
	}
	for i := 1; i <= products; i++ {
		f.Inventory = append(f.Inventory, shipping.InventoryItem{
			ID: fmt.Sprintf("%s_p%d", org, i), OrganizationID: org, Kind: shipping.KindProduct, SKU: fmt.Sprintf("SKU-%d", i), Name: "P"})
	}
	load(t, f)
}

// intakeSeeded opens the package database and seeds an organization of
// this file's own (intakeOrgID) with intakeSeed.
func intakeSeeded(t *testing.T, products int) (*bun.DB, string) {
	t.Helper()
	db := pgtest.Open(t, testDSN)
	org := intakeOrgID(t)
	intakeSeed(t, org, products)
	return db, org
}

// intakeApp is the real intake use case on db.
func intakeApp(db *bun.DB, uow ports.UnitOfWork[intakeports.Repositories]) *intakeapp.UseCases {
	return intakeAppTraced(db, uow, noop.NewTracerProvider().Tracer("test"))
}

// intakeTraced is the real intake use case on db, its spans recorded by
// the returned recorder, as are those of the returned tracer.
func intakeTraced(db *bun.DB) (*intakeapp.UseCases, *tracetest.SpanRecorder, trace.Tracer) {
	recorder := tracetest.NewSpanRecorder()
	tracer := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder)).Tracer("test")
	return intakeAppTraced(db, nil, tracer), recorder, tracer
}

func intakeAppTraced(db *bun.DB, uow ports.UnitOfWork[intakeports.Repositories], tracer trace.Tracer) *intakeapp.UseCases {
	if uow == nil {
		uow = postgres.NewUnitOfWork(db, pgintake.Repositories)
	}
	return intakeapp.New(application.Deps[intakeports.Repositories]{
		UnitOfWork: uow, Repos: postgres.NewRepositories(db, pgintake.Repositories), Clock: system.Clock{}, IDs: system.IDs{},
		Tracer: tracer, Log: slog.New(slog.DiscardHandler), Environment: domain.Sandbox,
	}, intakeapp.Settings{})
}

func intakeOrderOf(id int64, skus ...string) intake.StorefrontOrder {
	o := intake.StorefrontOrder{
		ID: id, Note: "Hinterhaus 🙏",
		ShippingAddress: &shipping.Address{Name: "Zoë Müller", Address1: "Straße des 17. Juni 135", City: "Berlin", Country: "DE"},
	}
	for i, s := range skus {
		o.Lines = append(o.Lines, intake.StorefrontLine{ID: int64(i + 1), SKU: s, Quantity: int64(i + 1), RequiresShipping: true})
	}
	return o
}

// scanQuery is pgtest.ScanQuery.
func scanQuery[T any](t testing.TB, db bun.IDB, query string, args ...any) T {
	t.Helper()
	return pgtest.ScanQuery[T](t, db, query, args...)
}

func intakeReceive(app *intakeapp.UseCases, org string, o intake.StorefrontOrder) (intakeapp.StorefrontOrderResult, error) {
	return app.ReceiveStorefrontOrder.Handle(context.Background(),
		intakeapp.ReceiveStorefrontOrder{OrganizationID: org, TraceID: "0123456789abcdef0123456789abcdef", Order: o})
}

func TestOrderReceiptRepository(t *testing.T) {
	db, org := intakeSeeded(t, 1)
	ctx := context.Background()
	repos := postgres.NewRepositories(db, pgintake.Repositories)
	uow := postgres.NewUnitOfWork(db, pgintake.Repositories)
	t0 := time.Date(2026, 11, 22, 1, 2, 3, 456000000, time.UTC)
	num := int64(1042)
	big := int64(9223372036854775807) // the largest int64 round-trips
	d := intake.OrderDelivery{OrganizationID: org, OrderID: big, OrderNumber: &num, TraceID: "trace-1", ReceivedAt: t0}

	if _, err := repos.Receipts.Get(ctx, org, big); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("get before any delivery: %v, want not found", err)
	}
	// A refused first attempt, then a successful one.
	if _, err := repos.Receipts.RecordFailure(ctx, d, "unknown_skus"); err != nil {
		t.Fatal(err)
	}
	d2 := d
	d2.TraceID, d2.ReceivedAt, d2.OrderNumber = "trace-2", t0.Add(time.Second), nil
	var claimed *intake.OrderReceipt
	err := uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
		var err error
		if claimed, _, err = r.Receipts.Claim(ctx, d2, nil); err != nil {
			return err
		}
		if claimed.Attempts() != 2 || claimed.TraceID() != "trace-2" || claimed.LastError() != "unknown_skus" {
			t.Errorf("claimed %+v, want attempt 2 of trace-2 with the last error", claimed)
		}
		if err := claimed.Skip(intake.SkipOrderCancelled); err != nil {
			return err
		}
		return r.Receipts.Finish(ctx, claimed)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := repos.Receipts.Get(ctx, org, big)
	if err != nil {
		t.Fatal(err)
	}
	if got.OrderNumber() == nil || *got.OrderNumber() != num {
		t.Fatalf("order number %v, want %d kept from the first delivery", got.OrderNumber(), num)
	}
	want := intake.RehydrateOrderReceipt(intake.OrderReceiptParams{
		OrganizationID: org, OrderID: big, OrderNumber: got.OrderNumber(), Status: intake.ReceiptSucceeded, Skipped: intake.SkipOrderCancelled,
		Attempts: 2, LastError: "unknown_skus", TraceID: "trace-2", FirstReceived: t0, LastReceived: t0.Add(time.Second),
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("receipt\n got %+v\nwant %+v", got, want)
	}
	// A succeeded receipt is never turned failed again, and a claim of it
	// changes nothing but the time of the last delivery.
	if _, err := repos.Receipts.RecordFailure(ctx, d, "invalid_payload"); err != nil {
		t.Fatal(err)
	}
	d3 := d
	d3.TraceID, d3.ReceivedAt = "trace-3", t0.Add(time.Minute)
	err = uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
		c, _, err := r.Receipts.Claim(ctx, d3, nil)
		if err != nil {
			return err
		}
		if !c.Duplicate() || c.Attempts() != 2 || c.TraceID() != "trace-2" {
			t.Errorf("claim of a succeeded receipt %+v", c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = repos.Receipts.Get(ctx, org, big); err != nil {
		t.Fatal(err)
	}
	if got.Status() != intake.ReceiptSucceeded || got.Attempts() != 2 || got.LastError() != "unknown_skus" || !got.LastReceived().Equal(t0.Add(time.Minute)) {
		t.Errorf("after a duplicate: %+v", got)
	}
	if _, err := repos.Receipts.Get(ctx, intakeOrgID(t), big); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another organization's receipt: %v, want not found", err)
	}
}

// A delivery that claims a receipt another transaction holds waits for it
// and then sees its outcome.
func TestOrderReceiptClaimWaitsForTheHolder(t *testing.T) {
	db, org := intakeSeeded(t, 0)
	uow := postgres.NewUnitOfWork(db, pgintake.Repositories)
	d := intake.OrderDelivery{OrganizationID: org, OrderID: 42, TraceID: "a", ReceivedAt: time.Now().UTC()}
	holding, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- uow.Do(context.Background(), func(ctx context.Context, r intakeports.Repositories) error {
			rec, _, err := r.Receipts.Claim(ctx, d, nil)
			if err != nil {
				return err
			}
			close(holding)
			<-release
			if err := rec.Skip(intake.SkipNoShippableItems); err != nil {
				return err
			}
			return r.Receipts.Finish(ctx, rec)
		})
	}()
	<-holding
	seen := make(chan *intake.OrderReceipt, 1)
	go func() {
		_ = uow.Do(context.Background(), func(ctx context.Context, r intakeports.Repositories) error {
			rec, _, err := r.Receipts.Claim(ctx, d, nil)
			seen <- rec
			return err
		})
	}()
	// The second claim is seen waiting for the holder's row lock in
	// PostgreSQL itself, not inferred from a timer.
	pgtest.WaitForLockWaiters(t, db, 1)
	select {
	case rec := <-seen:
		t.Fatalf("second claim did not wait for the holder: %+v", rec)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rec := <-seen; rec == nil || rec.Status() != intake.ReceiptSucceeded || rec.Attempts() != 1 {
		t.Fatalf("second claim saw %+v, want the holder's success", rec)
	}
}
