package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// The deployment's word on recording events: none until a server with
// EVENTS_NATS_URL asserts it; a server without it withdraws it only once
// no server with it has asserted it for the quiet period; asserting it
// again (concurrently, from several replicas) turns it back on.
func TestEventRecordingIsTheDeploymentsWord(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t, testDSN)
	if _, err := db.ExecContext(ctx, "DELETE FROM event_recording"); err != nil {
		t.Fatal(err)
	}
	rec := postgres.NewEventRecording(db)
	on := func(want bool) {
		t.Helper()
		got, err := rec.On(ctx)
		if err != nil || got != want {
			t.Fatalf("On: %v, %v; want %v", got, err, want)
		}
	}
	withdraw := func(want bool) {
		t.Helper()
		got, err := rec.Withdraw(ctx, time.Minute)
		if err != nil || got != want {
			t.Fatalf("Withdraw: %v, %v; want %v", got, err, want)
		}
	}

	on(false) // never set
	withdraw(false)
	on(false)

	// Several replicas starting at once on an empty table.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() { errs <- rec.Assert(ctx) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Assert: %v", err)
		}
	}
	on(true)
	var rows int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM event_recording").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("%d rows (%v), want one", rows, err)
	}

	// A server without EVENTS_NATS_URL while one with it asserted the word
	// within the quiet period: the word stands.
	withdraw(false)
	on(true)

	// The last assertion two minutes ago: withdrawn, once.
	if _, err := db.ExecContext(ctx, "UPDATE event_recording SET asserted_at = now() - interval '2 minutes'"); err != nil {
		t.Fatal(err)
	}
	withdraw(true)
	on(false)
	withdraw(false)

	if err := rec.Assert(ctx); err != nil {
		t.Fatal(err)
	}
	on(true)
}

// A schema before the table (no server has said anything): no recording,
// nothing to withdraw, no error.
func TestEventRecordingBeforeItsTable(t *testing.T) {
	db := pgtest.Open(t, pgtest.Database(t, false))
	rec := postgres.NewEventRecording(db)
	on, err := rec.On(context.Background())
	if err != nil || on {
		t.Fatalf("On on an empty database: %v, %v; want false, nil", on, err)
	}
	withdrawn, err := rec.Withdraw(context.Background(), time.Minute)
	if err != nil || withdrawn {
		t.Fatalf("Withdraw on an empty database: %v, %v; want false, nil", withdrawn, err)
	}
}
