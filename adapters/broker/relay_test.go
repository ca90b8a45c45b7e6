package broker_test

// The relay against the real PostgreSQL (a database of this package) and a
// private NATS JetStream per test (natstest): order per subject, deletes,
// rollbacks, two relays at once, a relay that dies between the broker's
// acknowledgement and its delete, and the broker away and back.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/broker"
	"github.com/acme3pl/fulfillment/adapters/broker/natstest"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	"github.com/acme3pl/fulfillment/adapters/system"
	eventsapp "github.com/acme3pl/fulfillment/application/events"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

var dsn string

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &dsn)) }

const stream = "FULFILLMENT"

// streamSettings are the stream's settings as the service's defaults
// give them.
func streamSettings() broker.Stream {
	return broker.Stream{Name: stream, Replicas: 1, MaxAge: 168 * time.Hour, DuplicateWindow: 10 * time.Minute,
		Publishes: "fulfillment.test.>"}
}

// seqEncoder encodes an event whose Data is its number in its subject.
type seqEncoder struct{}

func (seqEncoder) EncodeEvent(id string, e eventsports.Event) (string, []byte, error) {
	body, err := json.Marshal(map[string]any{"id": id, "subject": e.Subject, "n": e.Data})
	return "fulfillment.test." + string(e.Type), body, err
}

type env struct {
	t      *testing.T
	uow    *postgres.UnitOfWork[shippingports.Repositories]
	outbox *postgres.EventOutboxRepository
	nats   *natstest.Server
	nc     *nats.Conn
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.ExecContext(context.Background(), "DELETE FROM event_outbox"); err != nil {
		t.Fatal(err)
	}
	srv := natstest.Start(t)
	nc, err := broker.Connect(broker.Config{URL: srv.URL(), Name: t.Name()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return &env{
		t: t, uow: postgres.NewUnitOfWorkWithEvents(db, &postgres.Outbox{Encoder: seqEncoder{}, IDs: system.IDs{}}, pgshipping.Repositories),
		outbox: postgres.NewEventOutboxRepository(db), nats: srv, nc: nc,
	}
}

func (e *env) relay(tracer trace.Tracer) *eventsapp.RelayEventsHandler {
	e.t.Helper()
	if tracer == nil {
		tracer = noop.NewTracerProvider().Tracer("")
	}
	pub, err := broker.NewPublisher(e.nc, streamSettings(), broker.PublisherOptions{Tracer: tracer})
	if err != nil {
		e.t.Fatal(err)
	}
	return eventsapp.NewRelayEventsHandler(e.outbox, pub, tracer, 0)
}

// record commits one event per (subject, n) in one transaction.
func (e *env) record(ctx context.Context, subject string, ns ...int) error {
	return e.uow.Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		for _, n := range ns {
			if err := r.Events.Record(ctx, eventsports.Event{Type: eventsports.EventShipmentCreated, Subject: subject, Time: time.Now(), Data: n}); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *env) pending() int {
	e.t.Helper()
	s, err := e.outbox.Stats(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return s.Pending
}

// drain runs relay until the outbox is empty.
func (e *env) drain(relay *eventsapp.RelayEventsHandler) {
	e.t.Helper()
	ctx := context.Background()
	for range 100 {
		if _, err := relay.Handle(ctx, eventsapp.RelayEvents{}); err != nil {
			e.t.Fatalf("relay: %v", err)
		}
		if e.pending() == 0 {
			return
		}
	}
	e.t.Fatalf("the outbox still holds %d events", e.pending())
}

type received struct {
	MsgID   string
	ID      string `json:"id"`
	Subject string `json:"subject"`
	N       int    `json:"n"`
}

// stored reads every message of the stream, in the stream's order.
func (e *env) stored() []received {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js, err := jetstream.New(e.nc)
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []received
	for seq := uint64(1); seq <= info.State.LastSeq; seq++ {
		msg, err := s.GetMsg(ctx, seq)
		if err != nil {
			e.t.Fatalf("message %d: %v", seq, err)
		}
		var r received
		if err := json.Unmarshal(msg.Data, &r); err != nil {
			e.t.Fatal(err)
		}
		r.MsgID = msg.Header.Get(jetstream.MsgIDHeader)
		out = append(out, r)
	}
	return out
}

// checkStream checks that the stream holds exactly want[subject] events
// per subject, numbered 1, 2, … in their order, each once, with its event
// ID as Nats-Msg-Id.
func (e *env) checkStream(want map[string]int) {
	e.t.Helper()
	next := map[string]int{}
	ids := map[string]bool{}
	for _, r := range e.stored() {
		if r.MsgID != r.ID || ids[r.ID] {
			e.t.Fatalf("message %+v: Nats-Msg-Id %q, or its id seen before", r, r.MsgID)
		}
		ids[r.ID] = true
		next[r.Subject]++
		if r.N != next[r.Subject] {
			e.t.Fatalf("subject %s: event %d arrived where %d was due", r.Subject, r.N, next[r.Subject])
		}
	}
	for s, n := range want {
		if next[s] != n {
			e.t.Errorf("subject %s: %d events in the stream, want %d", s, next[s], n)
		}
	}
	if len(next) != len(want) {
		e.t.Errorf("subjects in the stream: %v, want %v", next, want)
	}
}

func TestRelayPublishesInOrderAndDeletes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	// Interleaved subjects, some with several events in one transaction.
	for i := 1; i <= 30; i++ {
		if err := e.record(ctx, "shp_a", i); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := e.record(ctx, "shp_b", i/3*2-1, i/3*2); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := e.pending(); got != 50 {
		t.Fatalf("pending %d, want 50", got)
	}
	e.drain(e.relay(nil))
	e.checkStream(map[string]int{"shp_a": 30, "shp_b": 20})
}

func TestRolledBackChangeHasNoEvent(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	boom := errors.New("the change fails")
	err := e.uow.Do(ctx, func(ctx context.Context, r shippingports.Repositories) error {
		if err := r.Events.Record(ctx, eventsports.Event{Type: eventsports.EventShipmentCreated, Subject: "shp_x", Data: 1}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Do: %v", err)
	}
	if got := e.pending(); got != 0 {
		t.Fatalf("pending after a rollback: %d", got)
	}
	if err := e.record(ctx, "shp_y", 1); err != nil {
		t.Fatal(err)
	}
	e.drain(e.relay(nil))
	e.checkStream(map[string]int{"shp_y": 1})
}

// Two relays (as two replicas) run while changes keep committing: every
// event arrives once, in order per subject.
func TestTwoRelaysNeverReorderASubject(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const subjects, perSubject = 8, 40
	var wg sync.WaitGroup
	for s := range subjects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= perSubject; n++ {
				if err := e.record(ctx, "shp_"+strconv.Itoa(s), n); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	relays := []*eventsapp.RelayEventsHandler{e.relay(nil), e.relay(nil)}
	done := make(chan struct{})
	var relayed sync.WaitGroup
	for _, r := range relays {
		relayed.Add(1)
		go func() {
			defer relayed.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := r.Handle(ctx, eventsapp.RelayEvents{}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for e.pending() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	close(done)
	relayed.Wait()
	want := map[string]int{}
	for s := range subjects {
		want["shp_"+strconv.Itoa(s)] = perSubject
	}
	e.checkStream(want)
}

// A relay that dies after the broker acknowledged a batch and before its
// delete committed: the events stay, the next relay publishes them again
// with the same IDs, and the stream drops the duplicates.
func TestRelayKilledBetweenPublishAndDelete(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.record(ctx, "shp_k", 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	pub, err := broker.NewPublisher(e.nc, streamSettings(), broker.PublisherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	killed := errors.New("killed before the delete")
	_, err = e.outbox.Relay(ctx, 100, 100, func(ctx context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
		acked, err := pub.Publish(ctx, events)
		if err != nil || len(acked) != 3 {
			t.Fatalf("publish: %d acknowledged, %v", len(acked), err)
		}
		return nil, killed // dies: nothing deleted, the transaction rolls back
	})
	if !errors.Is(err, killed) {
		t.Fatalf("relay: %v", err)
	}
	if got := e.pending(); got != 3 {
		t.Fatalf("pending after the killed relay: %d, want 3", got)
	}
	e.checkStream(map[string]int{"shp_k": 3})
	var duplicates int
	counting, err := broker.NewPublisher(e.nc, streamSettings(), broker.PublisherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for e.pending() > 0 {
		if _, err := e.outbox.Relay(ctx, 100, 100, func(ctx context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
			duplicates += len(events)
			return counting.Publish(ctx, events)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if duplicates != 3 {
		t.Fatalf("published again: %d, want 3", duplicates)
	}
	e.checkStream(map[string]int{"shp_k": 3}) // still three: the stream dropped the copies
}

// The broker away: the relay says so and touches nothing, the outbox keeps
// growing; the broker back (same store): every event arrives, in order,
// once.
func TestBrokerAwayAndBack(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	relay := e.relay(nil)
	if err := e.record(ctx, "shp_1", 1); err != nil {
		t.Fatal(err)
	}
	e.drain(relay)
	e.nats.Stop()
	for n := 2; n <= 20; n++ {
		if err := e.record(ctx, "shp_"+strconv.Itoa(n%3), n); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.nc.IsConnected() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n, err := relay.Handle(ctx, eventsapp.RelayEvents{}); !errors.Is(err, eventsapp.ErrBrokerUnavailable) || n != 0 {
		t.Fatalf("relay with the broker away: %d, %v; want ErrBrokerUnavailable", n, err)
	}
	if got := e.pending(); got != 19 {
		t.Fatalf("pending with the broker away: %d, want 19", got)
	}
	e.nats.Start()
	deadline = time.Now().Add(15 * time.Second)
	for !e.nc.IsConnected() {
		if time.Now().After(deadline) {
			t.Fatal("no reconnection to the broker")
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.drain(relay)
	// Renumber per subject as checkStream expects: the subjects' events
	// were numbered by n across subjects.
	got := map[string][]int{}
	for _, r := range e.stored() {
		got[r.Subject] = append(got[r.Subject], r.N)
	}
	want := map[string][]int{"shp_1": {1}}
	for n := 2; n <= 20; n++ {
		s := "shp_" + strconv.Itoa(n%3)
		want[s] = append(want[s], n)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stream after the outage: %v, want %v", got, want)
	}
}

// The publish span links to the trace of the change that recorded the
// event.
func TestPublishSpanLinksToTheChange(t *testing.T) {
	e := newEnv(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tracer := tp.Tracer("test")
	ctx, change := tracer.Start(context.Background(), "CancelShipment")
	if err := e.record(ctx, "shp_t", 1); err != nil {
		t.Fatal(err)
	}
	change.End()
	e.drain(e.relay(tracer))
	for _, s := range rec.Ended() {
		if s.Name() != "publish fulfillment.test.shipment.created" {
			continue
		}
		for _, l := range s.Links() {
			if l.SpanContext.TraceID() == change.SpanContext().TraceID() && l.SpanContext.SpanID() == change.SpanContext().SpanID() {
				if s.SpanKind() != trace.SpanKindProducer {
					t.Errorf("publish span kind %v", s.SpanKind())
				}
				return
			}
		}
		t.Fatalf("publish span's links %v do not name the change %v", s.Links(), change.SpanContext())
	}
	t.Fatal("no publish span")
}
