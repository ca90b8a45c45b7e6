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

// relayPoll is how often an idle relay looks at the outbox for events
// other replicas committed (its own commits wake it: relayPause).
const relayPoll = 200 * time.Millisecond

// relayGather is how long a relay woken by a commit waits for the commits
// that follow it, so that a burst goes out as one batch.
const relayGather = 5 * time.Millisecond

// relayInterval is the least time between the starts of two runs while
// events keep coming: under steady load the commits of an interval go out
// as one batch. Each batch has a cost whatever it carries — a claim, a
// delete and a commit in the database, a wake-up of the relay, a round of
// replication among the brokers of a cluster — and woken by every commit,
// the relay made batches of a few events each, which spent more on that
// than on the events. The price is lag under load, up to an interval; an
// idle relay is not held back (relayGather only), and a run whose last
// batch came full is followed at once (a backlog drains at the broker's
// pace).
const relayInterval = 250 * time.Millisecond

// relayPause is how long the relay waits, once woken (by a commit, or
// its timer after wait), before its run: relayGather after a commit, so
// that a burst goes out as one batch; and, unless it goes on at once after
// a full run (wait 0), until relayInterval after the start of the last run
// that published (sinceLast ago), so that under steady load the commits
// of an interval go out together. An idle relay's last run is long past.
func relayPause(byCommit bool, wait, sinceLast time.Duration) time.Duration {
	var pause time.Duration
	if byCommit {
		pause = relayGather
	}
	if wait > 0 {
		pause = max(pause, relayInterval-sinceLast)
	}
	return pause
}

// relayBackoff is the wait after the n-th failure in a row: 100 ms
// doubling up to 5 s, so that a broker back from an outage is used within
// seconds, and a broker away for an hour costs a check every 5 s.
func relayBackoff(n int) time.Duration {
	return min(100*time.Millisecond<<min(n, 6), 5*time.Second)
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
// counting what it publishes in the relay's metrics. A server runs it as
// a job (startRelay); `fulfillment events relay` until the outbox is
// empty.
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

// startRelay runs the relay with the server, as a job (relayRuns), when
// events are on. fx stops the job before it closes the relay's pool and
// connection: it waits for a batch in progress.
func startRelay(lc fx.Lifecycle, relay *eventsapp.RelayEventsHandler, nc *nats.Conn, pub *broker.Publisher,
	wake RelayWake, log *slog.Logger,
) {
	if relay == nil {
		return
	}
	r := &relayRuns{relay: relay, nc: nc, pub: pub, log: log}
	startJob(lc, job{wake: wake, run: r.run})
}

// streamCheckWait bounds the wait for the broker of the check at start.
const streamCheckWait = 10 * time.Second

// checkStreamAtStart looks at the stream as soon as the broker answers
// (creating it when missing, reporting an existing one's problems), so
// that a misconfigured stream is said at start, not at the first event.
// A broker that does not answer within streamCheckWait leaves the check to
// the first batch.
func checkStreamAtStart(ctx context.Context, nc *nats.Conn, pub *broker.Publisher, log *slog.Logger) {
	wait, cancel := context.WithTimeout(ctx, streamCheckWait)
	defer cancel()
	if AwaitBroker(wait, nc) != nil {
		return
	}
	if err := pub.EnsureStream(wait); err != nil && ctx.Err() == nil {
		log.WarnContext(ctx, "events stream not checked at start: the first batch will", slog.String("error", err.Error()))
	}
}

// relayRuns is the relay as a job: it checks the stream, then runs at once,
// after each local commit that wrote events (the job's wake), every
// relayPoll — under steady load no sooner than relayInterval after the last
// run that published (relayPause) — at once again after a run whose last
// batch came full, and relayBackoff after a failure.
type relayRuns struct {
	relay    *eventsapp.RelayEventsHandler
	nc       *nats.Conn
	pub      *broker.Publisher
	log      *slog.Logger
	checked  bool          // the stream was looked at (checkStreamAtStart)
	failures int           // runs failed in a row
	wait     time.Duration // the wait before this run
	last     time.Time     // the start of the last run that published
}

// run is one run of the relay, after its pause; it returns the wait before
// the next.
func (r *relayRuns) run(ctx context.Context, byCommit bool) (next time.Duration, wakeable bool) {
	if !r.checked {
		r.checked = true
		checkStreamAtStart(ctx, r.nc, r.pub, r.log)
	}
	if pause := relayPause(byCommit, r.wait, time.Since(r.last)); pause > 0 && !sleep(ctx, pause) {
		return 0, false
	}
	start := time.Now()
	n, more, err := r.relay.Run(ctx, eventsapp.RelayEvents{})
	if n > 0 {
		r.last = start
	}
	switch {
	case ctx.Err() != nil:
		return 0, false
	case err != nil:
		r.failures++
		if r.failures == 1 || r.failures%60 == 0 {
			r.log.WarnContext(ctx, "relay events: the outbox keeps them until the broker takes them",
				slog.Int("published", n), slog.Int("failures", r.failures), slog.String("error", err.Error()))
		}
		// Backing off: commits do not cut the wait short.
		r.wait = jitter(relayBackoff(r.failures))
		return r.wait, false
	case r.failures > 0:
		r.log.InfoContext(ctx, "relay events: the broker takes events again", slog.Int("failures", r.failures))
	}
	r.failures = 0
	if more {
		// Going on at once: a commit meanwhile does not hold the run back.
		r.wait = 0
		return 0, false
	}
	r.wait = jitter(relayPoll)
	return r.wait, true
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
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
