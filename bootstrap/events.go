package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/broker"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	eventsapp "github.com/acme3pl/fulfillment/application/events"
)

// streamChecked is what the relay does with what an existing stream
// lacks: the gauge fulfillment_events_stream_misconfigured says it at
// every check, and one error line, at the first check that finds a
// problem, says what (the stream is the operator's: the service never
// edits it).
func streamChecked(stream string, m *telemetry.EventMetrics, log *slog.Logger) func([]string) {
	var logged atomic.Bool
	return func(problems []string) {
		m.StreamChecked(problems)
		if len(problems) > 0 && logged.CompareAndSwap(false, true) {
			log.Error("events stream misconfigured: the service uses it as it is and never edits it; see docs/runbook.md",
				slog.String("stream", stream), slog.String("problems", strings.Join(problems, "; ")))
		}
	}
}

// relayModule provides the relay, nil when events are off: the use case
// (eventsapp.RelayEventsHandler) on the outbox of its own pool
// (Config.RelayDB), and its publisher on a connection to the broker,
// counting what it publishes in the relay's metrics. A server runs it
// with its run policy (startRelay); `fulfillment events relay` until the
// outbox is empty.
var relayModule = fx.Provide(telemetry.NewEventMetrics, newBrokerConn, newEventPublisher, newRelayEvents)

// eventsTracer names the relay's spans.
const eventsTracer = "github.com/acme3pl/fulfillment/events"

// newBrokerConn connects to the broker, nil when events are off; the
// connection closes with the graph. It does not wait for the broker: the
// client connects again by itself (AwaitBroker).
func newBrokerConn(lc fx.Lifecycle, cfg Config, log *slog.Logger) (*nats.Conn, error) {
	if !cfg.EventsOn() {
		return nil, nil
	}
	nc, err := broker.Connect(cfg.Broker(), log)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(nc.Close))
	return nc, nil
}

// newEventPublisher publishes the relay's batches on nc, nil when events
// are off.
func newEventPublisher(cfg Config, nc *nats.Conn, tp trace.TracerProvider, m *telemetry.EventMetrics, log *slog.Logger,
) (*broker.Publisher, error) {
	if nc == nil {
		return nil, nil
	}
	return broker.NewPublisher(nc, cfg.EventsStreamSettings(), broker.PublisherOptions{
		Tracer: tp.Tracer(eventsTracer), Observed: m.Observe, Checked: streamChecked(cfg.EventsStream, m, log),
	})
}

// newRelayEvents is the relay's use case on a pool of its own, nil when
// events are off; the pool closes with the graph.
func newRelayEvents(lc fx.Lifecycle, cfg Config, pub *broker.Publisher, tp trace.TracerProvider) (*eventsapp.RelayEventsHandler, error) {
	if pub == nil {
		return nil, nil
	}
	db, err := postgres.Open(cfg.RelayDB())
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return eventsapp.NewRelayEventsHandler(postgres.NewEventOutboxRepository(db), pub, tp.Tracer(eventsTracer), eventsapp.PublishBudget), nil
}

// startRelay runs the relay with the server, when events are on: its run
// policy (eventsapp.RunRelayHandler), woken by the server's commits that
// wrote events, in a goroutine of its own (startLoop). fx stops it before
// it closes the relay's pool and connection: it waits for a batch in
// progress.
func startRelay(lc fx.Lifecycle, relay *eventsapp.RelayEventsHandler, pub *broker.Publisher, wake RelayWake, log *slog.Logger) {
	if relay == nil {
		return
	}
	runs := eventsapp.NewRunRelayHandler(relay, pub, log)
	startLoop(lc, func(ctx context.Context) { runs.Handle(ctx, eventsapp.RunRelay{Wake: wake}) })
}

// ConnectBroker connects a command to the broker and waits until it
// answers, within ctx.
func ConnectBroker(ctx context.Context, cfg Config, log *slog.Logger) (*nats.Conn, error) {
	nc, err := broker.Connect(cfg.Broker(), log)
	if err != nil {
		return nil, err
	}
	if err := AwaitBroker(ctx, nc); err != nil {
		nc.Close()
		return nil, err
	}
	return nc, nil
}

// AwaitBroker waits until the broker answers on nc, within ctx.
func AwaitBroker(ctx context.Context, nc *nats.Conn) error {
	for !nc.IsConnected() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the events broker at EVENTS_NATS_URL does not answer: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
