package broker_test

// The stream as a platform team runs it: the settings of a stream the
// relay creates, an existing stream checked and never edited, a stream
// deleted while the relay runs, and batches that drain a long subject at
// the broker's pace.

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/broker"
	eventsapp "github.com/acme3pl/fulfillment/application/events"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

func TestStreamProblems(t *testing.T) {
	s := streamSettings() // publishes fulfillment.test.>, needs a 10m window
	for name, tc := range map[string]struct {
		subjects []string
		window   time.Duration
		want     []string // a word of each problem
	}{
		"the service's own":              {[]string{"fulfillment.>"}, 10 * time.Minute, nil},
		"its environment's only":         {[]string{"fulfillment.test.>"}, time.Hour, nil},
		"a wildcard for the environment": {[]string{"audit.>", "fulfillment.*.>"}, 10 * time.Minute, nil},
		"everything":                     {[]string{">"}, 10 * time.Minute, nil},
		"another environment":            {[]string{"fulfillment.production.>"}, 10 * time.Minute, []string{"subjects"}},
		"some types only":                {[]string{"fulfillment.test.shipment.*"}, 10 * time.Minute, []string{"subjects"}},
		"one token per wildcard":         {[]string{"fulfillment.*"}, 10 * time.Minute, []string{"subjects"}},
		"NATS's default window":          {[]string{"fulfillment.>"}, 2 * time.Minute, []string{"duplicate window"}},
		"both":                           {[]string{"other.>"}, 30 * time.Second, []string{"subjects", "duplicate window"}},
	} {
		t.Run(name, func(t *testing.T) {
			got := s.Problems(jetstream.StreamConfig{Subjects: tc.subjects, Duplicates: tc.window})
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d naming %v", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q, want it to name %s", got[i], w)
				}
			}
		})
	}
}

// checks records what a publisher's checks of the stream found.
type checks struct {
	mu    sync.Mutex
	found [][]string
}

func (c *checks) checked(problems []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.found = append(c.found, problems)
}

func (c *checks) all() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.found)
}

func (e *env) relayWith(s broker.Stream, c *checks, budget time.Duration) *eventsapp.RelayEventsHandler {
	e.t.Helper()
	tracer := noop.NewTracerProvider().Tracer("")
	pub, err := broker.NewPublisher(e.nc, s, broker.PublisherOptions{Tracer: tracer, Checked: c.checked})
	if err != nil {
		e.t.Fatal(err)
	}
	return eventsapp.NewRelayEventsHandler(e.outbox, pub, tracer, budget)
}

func (e *env) streamConfig() jetstream.StreamConfig {
	e.t.Helper()
	js, err := jetstream.New(e.nc)
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := js.Stream(context.Background(), stream)
	if err != nil {
		e.t.Fatal(err)
	}
	return s.CachedInfo().Config
}

// A stream the relay creates has the settings it was given.
func TestStreamCreatedWithTheSettings(t *testing.T) {
	e := newEnv(t)
	if err := e.record(context.Background(), "shp_s", 1); err != nil {
		t.Fatal(err)
	}
	var c checks
	s := streamSettings()
	s.MaxAge, s.DuplicateWindow = 72*time.Hour, 20*time.Minute
	e.drain(e.relayWith(s, &c, 0))
	cfg := e.streamConfig()
	if !slices.Equal(cfg.Subjects, []string{"fulfillment.>"}) || cfg.Replicas != 1 || cfg.MaxAge != 72*time.Hour ||
		cfg.Duplicates != 20*time.Minute || cfg.Storage != jetstream.FileStorage {
		t.Fatalf("stream created as %+v", cfg)
	}
	if got := c.all(); len(got) != 1 || got[0] != nil {
		t.Fatalf("checks %q, want one without problems", got)
	}
	e.checkStream(map[string]int{"shp_s": 1})
}

// An operator's stream with a 30 s duplicate window: the check says so,
// the relay publishes to it as it is, and leaves its configuration alone.
func TestExistingStreamIsCheckedNeverEdited(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	js, err := jetstream.New(e.nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{"fulfillment.>"},
		Duplicates: 30 * time.Second, MaxAge: time.Hour, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	before := e.streamConfig()
	if err := e.record(ctx, "shp_o", 1, 2); err != nil {
		t.Fatal(err)
	}
	var c checks
	e.drain(e.relayWith(streamSettings(), &c, 0))
	got := c.all()
	if len(got) != 1 || len(got[0]) != 1 || !strings.Contains(got[0][0], "duplicate window 30s") {
		t.Fatalf("checks %q, want one naming the 30s duplicate window", got)
	}
	after := e.streamConfig()
	if after.Duplicates != 30*time.Second || after.MaxAge != time.Hour || after.Storage != jetstream.MemoryStorage ||
		!slices.Equal(after.Subjects, before.Subjects) || after.Replicas != before.Replicas {
		t.Fatalf("stream changed: %+v, was %+v", after, before)
	}
	e.checkStream(map[string]int{"shp_o": 2})
}

// relayUntilEmpty runs relay as the server's loop does (failures back
// off), until the outbox is empty or within fails the test.
func (e *env) relayUntilEmpty(relay *eventsapp.RelayEventsHandler, within time.Duration) (failures int) {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for e.pending() > 0 {
		if time.Now().After(deadline) {
			e.t.Fatalf("the outbox still holds %d events after %s (%d failed runs)", e.pending(), within, failures)
		}
		if _, err := relay.Handle(context.Background(), eventsapp.RelayEvents{}); err != nil {
			failures++
			time.Sleep(100 * time.Millisecond)
		}
	}
	return failures
}

// The stream deleted while the relay runs (an operator's mistake): the
// relay creates it again, with its settings, and every event recorded
// meanwhile arrives, in order, once.
func TestDeletedStreamIsCreatedAgain(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var c checks
	relay := e.relayWith(streamSettings(), &c, 0)
	if err := e.record(ctx, "shp_before", 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	e.drain(relay)
	js, err := jetstream.New(e.nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, stream); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for n := 1; n <= 10; n++ {
		for _, s := range []string{"shp_x", "shp_y"} {
			if err := e.record(ctx, s, n); err != nil {
				t.Fatal(err)
			}
			want[s] = n
		}
	}
	failures := e.relayUntilEmpty(relay, 30*time.Second)
	t.Logf("%d failed runs before the stream was back", failures)
	e.checkStream(want) // the new stream: only what was recorded after the delete
	if cfg := e.streamConfig(); cfg.Duplicates != 10*time.Minute || cfg.MaxAge != 168*time.Hour {
		t.Fatalf("stream created again as %+v", cfg)
	}
	if got := c.all(); len(got) < 2 {
		t.Fatalf("checks %q: the stream was looked at once only", got)
	}
}

// 5,000 events of one subject (a shipment's history replayed, a subject
// piled up while the broker was away) drain within a minute, in order.
func TestLongSubjectDrains(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const n = 5000
	for from := 1; from <= n; from += 1000 {
		ns := make([]int, 0, 1000)
		for i := from; i < from+1000; i++ {
			ns = append(ns, i)
		}
		if err := e.record(ctx, "shp_long", ns...); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.record(ctx, "shp_short", 1, 2); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	failures := e.relayUntilEmpty(e.relay(nil), time.Minute)
	t.Logf("%d events drained in %s (%d failed runs)", n+2, time.Since(start).Round(time.Millisecond), failures)
	e.checkStream(map[string]int{"shp_long": n, "shp_short": 2})
}

// A batch whose time is up before its subject is through keeps what the
// broker took: with a budget that ends at once, every run publishes one
// event of the subject, and the subject drains all the same.
func TestBatchCutShortKeepsItsProgress(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const n = 60
	ns := make([]int, n)
	for i := range ns {
		ns[i] = i + 1
	}
	if err := e.record(ctx, "shp_cut", ns...); err != nil {
		t.Fatal(err)
	}
	relay := e.relayWith(streamSettings(), &checks{}, time.Nanosecond)
	for run := 1; e.pending() > 0; run++ {
		if run > n {
			t.Fatalf("%d runs, %d events left", run, e.pending())
		}
		published, err := relay.Handle(ctx, eventsapp.RelayEvents{})
		if err != nil || published < 1 {
			t.Fatalf("run %d: %d published, %v; want progress", run, published, err)
		}
	}
	e.checkStream(map[string]int{"shp_cut": n})
}

// The outbox keeps the leading acknowledged events of each subject and no
// more: an event acknowledged after one of its subject that failed stays
// (so that the subject is published again from its gap, in order), and
// so does the failed one; the rest of the batch is deleted all the same.
func TestRelayKeepsProgressUpToAGap(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.record(ctx, "shp_g", 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	if err := e.record(ctx, "shp_h", 1, 2); err != nil {
		t.Fatal(err)
	}
	broke := errors.New("the second of shp_g timed out")
	deleted, err := e.outbox.Relay(ctx, 100, 100, func(_ context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
		var acked []int64
		seen := map[string]int{}
		for _, ev := range events {
			seen[ev.Subject]++
			if ev.Subject == "shp_g" && seen[ev.Subject] == 2 {
				continue
			}
			acked = append(acked, ev.Seq)
		}
		return acked, broke
	})
	if !errors.Is(err, broke) || deleted != 3 {
		t.Fatalf("relay: %d deleted, %v; want 3 (shp_g's first, shp_h's two) and the error", deleted, err)
	}
	if got := e.pending(); got != 2 {
		t.Fatalf("pending %d, want shp_g's second and third", got)
	}
	var left []string
	if _, err := e.outbox.Relay(ctx, 100, 100, func(_ context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
		for _, ev := range events {
			left = append(left, ev.Subject+"#"+strconv.FormatInt(ev.Seq, 10))
		}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 || !strings.HasPrefix(left[0], "shp_g#") || !strings.HasPrefix(left[1], "shp_g#") {
		t.Fatalf("next batch %v, want shp_g's second and third", left)
	}
}
