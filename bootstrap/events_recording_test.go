package bootstrap_test

import (
	"context"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/bootstrap"
)

// A command's recorder follows the deployment's word when its own
// environment lacks EVENTS_NATS_URL, read once when its graph is built: no
// outbox while the word is unset or taken back, an outbox without a
// wake-up (it has no relay) once a server said events are recorded; with
// EVENTS_NATS_URL of its own it records whatever the word.
func TestCommandRecordsEventsAsTheDeploymentSays(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t, testDSN)
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	outbox := func(cfg bootstrap.Config) *postgres.Outbox {
		t.Helper()
		var got *postgres.Outbox
		if err := bootstrap.RunCommand(ctx, cfg, 1, func(_ context.Context, o *postgres.Outbox) error {
			got = o
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	t.Cleanup(func() { exec("DELETE FROM event_recording") })
	cfg := testConfig(t)

	exec("DELETE FROM event_recording")
	if o := outbox(cfg); o != nil {
		t.Fatal("a command records events in a deployment that never said so")
	}
	if err := postgres.NewEventRecording(db).Assert(ctx); err != nil {
		t.Fatal(err)
	}
	if o := outbox(cfg); o == nil || o.Wake != nil || o.Encoder == nil || o.IDs == nil {
		t.Fatalf("outbox %+v, want one without a wake-up once a server said events are recorded", o)
	}
	exec("UPDATE event_recording SET recording = false")
	if o := outbox(cfg); o != nil {
		t.Fatal("a command records events after the deployment took it back")
	}

	withURL := cfg
	withURL.EventsNATSURL = "nats://127.0.0.1:1"
	if o := outbox(withURL); o == nil {
		t.Fatal("a command with EVENTS_NATS_URL of its own records no event")
	}
}
