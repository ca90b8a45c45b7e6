package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
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

// EventsOn tells whether events are recorded and relayed: EVENTS_NATS_URL
// is set.
func (c Config) EventsOn() bool { return c.EventsNATSURL != "" }

// Broker is the events part of the configuration.
func (c Config) Broker() broker.Config {
	return broker.Config{
		URL: c.EventsNATSURL, Stream: c.EventsStream, CredsFile: c.EventsNATSCreds,
		User: c.EventsNATSUser, Password: c.EventsNATSPassword, Token: c.EventsNATSToken,
		Name: "fulfillment " + string(c.Environment),
	}
}

// EventsStreamSettings is the events stream: the settings of one the service
// creates, and what it needs of one that exists.
func (c Config) EventsStreamSettings() broker.Stream {
	return broker.Stream{
		Name: c.EventsStream, Replicas: c.EventsStreamReplicas, MaxAge: c.EventsStreamMaxAge,
		DuplicateWindow: c.EventsDuplicateWindow, Publishes: "fulfillment." + string(c.Environment) + ".>",
	}
}

// maxStreamReplicas is JetStream's bound on a stream's replicas.
const maxStreamReplicas = 5

// validateEvents checks the EVENTS_* settings.
func (c Config) validateEvents() error {
	if strings.TrimSpace(c.EventsStream) == "" || strings.ContainsAny(c.EventsStream, " \t\r\n.*>/\\") {
		return fmt.Errorf("EVENTS_STREAM: %q is not a stream name (letters, digits, - and _; for example FULFILLMENT)", c.EventsStream)
	}
	if c.EventsStreamReplicas < 1 || c.EventsStreamReplicas > maxStreamReplicas {
		return fmt.Errorf("EVENTS_STREAM_REPLICAS: %d, want 1 to %d (3 on a three-server cluster)", c.EventsStreamReplicas, maxStreamReplicas)
	}
	if c.EventsStreamMaxAge <= 0 {
		return fmt.Errorf("EVENTS_STREAM_MAX_AGE: %s, want a positive duration such as 168h", c.EventsStreamMaxAge)
	}
	// The broker refuses a duplicate window longer than the stream keeps
	// its messages.
	if c.EventsDuplicateWindow <= 0 || c.EventsDuplicateWindow > c.EventsStreamMaxAge {
		return fmt.Errorf("EVENTS_DUPLICATE_WINDOW: %s, want a positive duration no longer than EVENTS_STREAM_MAX_AGE (%s), such as 10m",
			c.EventsDuplicateWindow, c.EventsStreamMaxAge)
	}
	if !c.EventsOn() {
		return nil
	}
	for _, s := range strings.Split(c.EventsNATSURL, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls" && u.Scheme != "ws" && u.Scheme != "wss") {
			return errors.New("EVENTS_NATS_URL: not a nats://host:port URL (several may be given, comma-separated)")
		}
	}
	kinds := 0
	for _, set := range []bool{c.EventsNATSCreds != "", c.EventsNATSUser != "", c.EventsNATSToken != ""} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds > 1:
		return errors.New("EVENTS_NATS_CREDS, EVENTS_NATS_USER and EVENTS_NATS_TOKEN: set one kind of credentials at most")
	case c.EventsNATSPassword != "" && c.EventsNATSUser == "":
		return errors.New("EVENTS_NATS_PASSWORD: set without EVENTS_NATS_USER")
	}
	return nil
}

// relayConns is the size of the relay's own connection pool: the relay
// never takes a connection the API's requests wait for, and a slow broker,
// which keeps the relay's transaction open, never holds the API's pool.
const relayConns = 2

// RelayDB is the relay's own pool of relayConns connections. No JIT in its
// sessions: the generic plan of claimEventsSQL is costed for full batches
// of every subject, past PostgreSQL's jit_above_cost, and compiling it took
// longer than running it — seconds, under load, until the statement timed
// out.
//
// Its sessions have bounds of their own: it serves no request, and a
// statement cut at the API's bound under load is work thrown away and done
// again; the broker's acknowledgements are bounded apart
// (eventsapp.PublishBudget, and the broker's bound on each).
func (c Config) RelayDB() postgres.Options {
	return postgres.Options{
		DSN: c.DatabaseURL, MaxOpenConns: relayConns,
		Limits: postgres.SessionLimits{
			StatementTimeout: 10 * time.Second, LockTimeout: c.SessionLimits().LockTimeout,
			IdleInTransactionTimeout: 10 * time.Second, IOTimeout: 15 * time.Second,
		},
	}
}

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
