package events

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// The relay's pacing: an idle relay publishes a commit's events after
// relayGather; while events keep coming, runs start relayInterval apart;
// after a full run it goes on at once.
func TestRelayPause(t *testing.T) {
	idle := time.Hour // the last run that published is long past
	for _, c := range []struct {
		name      string
		byCommit  bool
		wait      time.Duration
		sinceLast time.Duration
		want      time.Duration
	}{
		{"idle, woken by a commit", true, relayPoll, idle, relayGather},
		{"idle, its poll", false, relayPoll, idle, 0},
		{"under load, woken by a commit", true, relayPoll, relayInterval / 5, relayInterval * 4 / 5},
		{"under load, its poll", false, relayPoll, relayInterval / 5, relayInterval * 4 / 5},
		{"under load, the interval nearly over", true, relayPoll, relayInterval - time.Millisecond, relayGather},
		{"after a full run", false, 0, 0, 0},
		{"backing off", false, time.Second, time.Second, 0},
	} {
		if got := relayPause(c.byCommit, c.wait, c.sinceLast); got != c.want {
			t.Errorf("%s: pause %s, want %s", c.name, got, c.want)
		}
	}
}

// A run starts at once; a wake-up ends a wait only when the run before it
// let it (the relay's poll), not otherwise (its back-off), and the run
// knows a wake-up started it.
func TestRelayWakeUps(t *testing.T) {
	wake := make(chan struct{}, 1)
	runs := make(chan bool)
	wakeable := []bool{true, false}
	run := func(ctx context.Context, woken bool) (time.Duration, bool) {
		select {
		case runs <- woken:
		case <-ctx.Done():
		}
		w := len(wakeable) > 0 && wakeable[0]
		if len(wakeable) > 0 {
			wakeable = wakeable[1:]
		}
		return time.Hour, w
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); loop(ctx, wake, run) }()
	defer func() { cancel(); <-done }()

	if woken := <-runs; woken {
		t.Fatal("the first run says a wake-up started it")
	}
	wake <- struct{}{}
	select {
	case woken := <-runs:
		if !woken {
			t.Fatal("a run started by a wake-up does not say so")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a wake-up did not end a wait its run let it end")
	}
	wake <- struct{}{}
	select {
	case <-runs:
		t.Fatal("a wake-up ended a wait its run did not let it end")
	case <-time.After(100 * time.Millisecond):
	}
}

// oneSubject is an outbox of n events of one subject, which publish
// acknowledges in full or not at all.
type oneSubject struct{ n int }

func (o *oneSubject) Relay(ctx context.Context, heads, perSubject int, publish eventsports.EventPublish) (int, error) {
	batch := make([]eventsports.OutboxEvent, min(o.n, perSubject))
	if len(batch) == 0 {
		return 0, nil
	}
	for i := range batch {
		batch[i] = eventsports.OutboxEvent{Seq: int64(i + 1), Subject: "shp_1"}
	}
	acked, err := publish(ctx, batch)
	o.n -= len(acked)
	return len(acked), err
}

func (o *oneSubject) Stats(context.Context) (eventsports.OutboxStats, error) {
	return eventsports.OutboxStats{Pending: o.n}, nil
}

// switchedBroker acknowledges every event while it is connected.
type switchedBroker struct{ up atomic.Bool }

func (b *switchedBroker) Connected() bool { return b.up.Load() }

func (b *switchedBroker) Publish(_ context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
	acked := make([]int64, len(events))
	for i, e := range events {
		acked[i] = e.Seq
	}
	return acked, nil
}

func (b *switchedBroker) EnsureStream(context.Context) error {
	if !b.up.Load() {
		return errors.New("no broker")
	}
	return nil
}

// within tells whether d is base spread by jitter (±20 %).
func within(d, base time.Duration) bool { return d >= base*8/10 && d <= base*12/10 }

// The policy after each run: a failure backs off (commits do not cut it
// short) and says so once; the broker back, the relay says so and polls,
// woken by commits; a run whose last batch came full goes on at once.
func TestRelayRunsAfterEachRun(t *testing.T) {
	var logs bytes.Buffer
	outbox, broker := &oneSubject{}, &switchedBroker{}
	relay := NewRelayEventsHandler(outbox, broker, noop.NewTracerProvider().Tracer(""), 0)
	r := relayRuns{h: NewRunRelayHandler(relay, broker, slog.New(slog.NewTextHandler(&logs, nil)))}
	ctx := context.Background()

	for n := 1; n <= 3; n++ {
		next, wakeable := r.run(ctx, false)
		if !within(next, relayBackoff(n)) || wakeable || r.failures != n {
			t.Fatalf("failure %d: next run in %s (wakeable %v), want about %s, not wakeable", n, next, wakeable, relayBackoff(n))
		}
	}
	if c := strings.Count(logs.String(), "the outbox keeps them until the broker takes them"); c != 1 {
		t.Fatalf("%d warnings for three failures in a row, want 1:\n%s", c, logs.String())
	}

	broker.up.Store(true)
	next, wakeable := r.run(ctx, false)
	if !within(next, relayPoll) || !wakeable || r.failures != 0 {
		t.Fatalf("the broker back: next run in %s (wakeable %v), want about %s, wakeable", next, wakeable, relayPoll)
	}
	if !strings.Contains(logs.String(), "the broker takes events again") {
		t.Fatalf("the broker back is not said:\n%s", logs.String())
	}

	outbox.n = relayBatches*relayPerSubject + 1
	if next, wakeable := r.run(ctx, false); next != 0 || wakeable {
		t.Fatalf("after a full run: next run in %s (wakeable %v), want at once", next, wakeable)
	}
	if outbox.n != 1 {
		t.Fatalf("%d events left after a full run, want 1", outbox.n)
	}
}

// The check at start waits for the broker, then looks at the stream; a
// broker that does not answer before the relay stops leaves it undone.
func TestRelayChecksTheStreamAtStart(t *testing.T) {
	broker := &switchedBroker{}
	checked := &countedStream{EventStream: broker}
	relay := NewRelayEventsHandler(&oneSubject{}, broker, noop.NewTracerProvider().Tracer(""), 0)
	h := NewRunRelayHandler(relay, checked, slog.New(slog.DiscardHandler))

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	h.checkStreamAtStart(ctx)
	if checked.n.Load() != 0 {
		t.Fatal("the stream was checked with the broker away")
	}
	go func() { time.Sleep(100 * time.Millisecond); broker.up.Store(true) }()
	h.checkStreamAtStart(context.Background())
	if checked.n.Load() != 1 {
		t.Fatalf("the stream was checked %d times once the broker answered, want once", checked.n.Load())
	}
}

// countedStream counts the checks of a stream.
type countedStream struct {
	eventsports.EventStream
	n atomic.Int32
}

func (s *countedStream) EnsureStream(ctx context.Context) error {
	s.n.Add(1)
	return s.EventStream.EnsureStream(ctx)
}
