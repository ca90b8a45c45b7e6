package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/broker"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/ports"
)

// Whether events are recorded is the deployment's, not one process's
// (docs/events.md): a server records them when it runs with
// EVENTS_NATS_URL and says so in the database (postgres.EventRecording,
// startRecordingWord); a process whose own environment lacks it — an
// operator's command from a shell, a Job — reads that word once, when it
// builds its recorder (eventRecording), and records its events into the
// outbox for the servers' relays to publish. No transaction asks anything:
// the recorder is on or off for the process's life.

// EventsModule records the platform's events and relays them, on every
// replica, when EVENTS_NATS_URL is set, and keeps the deployment's word on
// recording (docs/events.md).
var EventsModule = fx.Module("events",
	serverEventRecording,
	relayModule,
	fx.Invoke(startRelay, startRecordingWord),
)

// RelayWake wakes the local relay after a transaction that wrote events
// commits: a channel of one slot, so that wake-ups coalesce.
type RelayWake chan struct{}

// Wake wakes the relay, or leaves it awake.
func (w RelayWake) Wake() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// EventOutbox is what the unit of work needs to record events. wake may be
// nil (a command without a relay of its own: the servers' relays publish
// what it records).
func EventOutbox(cfg Config, ids ports.IDGenerator, wake func()) *postgres.Outbox {
	return &postgres.Outbox{
		Encoder: broker.CloudEvents{Environment: string(cfg.Environment), Data: broker.EventData},
		IDs:     ids, Wake: wake,
	}
}

// serverEventRecording is what a server's unit of work needs to record
// events: the outbox when EVENTS_NATS_URL is set (nil otherwise: nothing
// is recorded), and the local relay's wake-up.
var serverEventRecording = fx.Provide(
	func() RelayWake { return make(RelayWake, 1) },
	func(cfg Config, ids ports.IDGenerator, wake RelayWake) *postgres.Outbox {
		if !cfg.EventsOn() {
			return nil
		}
		return EventOutbox(cfg, ids, wake.Wake)
	},
)

// eventRecording is what an operator command's unit of work needs to
// record events (commandEventsModule): the outbox when EVENTS_NATS_URL is
// set, and otherwise when the deployment's word says events are recorded
// (commandOutbox); its wake-up is read by nothing.
var eventRecording = fx.Provide(
	func() RelayWake { return make(RelayWake, 1) },
	commandOutbox,
)

// recordingReadWait bounds a command's read of the deployment's word.
const recordingReadWait = 15 * time.Second

// commandOutbox is a command's outbox. With EVENTS_NATS_URL it records, as
// a server does. Without it, it reads the deployment's word, once: when a
// server with EVENTS_NATS_URL said so, the command records its events with
// no wake-up — it has no relay; the servers' relays take its rows at their
// next look at the outbox (eventsapp.RunRelay); otherwise (never said, or taken
// back) it records nothing (nil).
func commandOutbox(cfg Config, ids ports.IDGenerator, db *bun.DB) (*postgres.Outbox, error) {
	if cfg.EventsOn() {
		return EventOutbox(cfg, ids, nil), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordingReadWait)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("the database at DATABASE_URL does not answer: %w", err)
	}
	on, err := postgres.NewEventRecording(db).On(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read whether the deployment records events: %w", err)
	case !on:
		return nil, nil
	}
	return EventOutbox(cfg, ids, nil), nil
}

// recordingAssertEvery is how often a server says the deployment's word
// again: with EVENTS_NATS_URL, that events are recorded; without it, that
// they are not, unless a server with it said otherwise within
// recordingQuiet.
const recordingAssertEvery = time.Minute

// recordingQuiet is how long after the last word of a server with
// EVENTS_NATS_URL a server without it turns the recording off: longer than
// two of recordingAssertEvery (jittered by up to a fifth), so that a
// running server with it — an old pod of a rolling update that removes the
// broker, a new pod of one that adds it — keeps the recording on.
const recordingQuiet = 3 * time.Minute

// startRecordingWord runs, on every server, at start and every
// recordingAssertEvery, the server's part of the deployment's word:
// with EVENTS_NATS_URL it asserts that events are recorded; without it,
// it withdraws that once no server with it has asserted it for
// recordingQuiet, so that a deployment that drops the broker stops growing
// the outbox, while one whose servers still run with it (a rolling update)
// keeps recording. A database that does not answer is tried again at the
// next tick (one warning line a tick).
func startRecordingWord(lc fx.Lifecycle, cfg Config, db *bun.DB, tracer trace.Tracer, log *slog.Logger) {
	word := postgres.NewEventRecording(db)
	startJob(lc, tickerJob("events-recording", 0, recordingAssertEvery, tracer, log,
		func(ctx context.Context) (string, []slog.Attr, error) {
			if cfg.EventsOn() {
				return "", nil, word.Assert(ctx)
			}
			withdrawn, err := word.Withdraw(ctx, recordingQuiet)
			if withdrawn {
				return "events are no longer recorded: no server with EVENTS_NATS_URL runs (docs/events.md)",
					[]slog.Attr{slog.Duration("quiet", recordingQuiet)}, err
			}
			return "", nil, err
		}))
}
