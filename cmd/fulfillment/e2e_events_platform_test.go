package main

// End-to-end tests of the events stream as a platform team runs it
// (docs/events.md): a three-server JetStream cluster whose stream leader
// is killed while orders arrive, a stream deleted while the server runs,
// and an operator's stream with too short a duplicate window.

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/acme3pl/fulfillment/adapters/broker/natstest"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// orderFlow delivers storefront orders to srv from a few workers until
// stopped, cancelling every fourth shipment (a second event of its
// subject, so that order per subject is seen). Every delivery must be
// answered 200 with a new shipment, and every cancel 200.
type orderFlow struct {
	mu        sync.Mutex
	shipments []string
	cancelled map[string]bool
	created   map[string]time.Time // when the order that created the shipment was delivered
	stop      chan struct{}
	wg        sync.WaitGroup
}

func startOrderFlow(t *testing.T, srv *e2e.Server, base int64, workers int) *orderFlow {
	t.Helper()
	f := &orderFlow{cancelled: map[string]bool{}, created: map[string]time.Time{}, stop: make(chan struct{})}
	var next atomic.Int64
	for range workers {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-f.stop:
					return
				default:
				}
				id := strconv.FormatInt(base+next.Add(1), 10)
				sent := time.Now()
				r := e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), id, nil))
				if r.Status != http.StatusOK {
					t.Errorf("order %s: %d %s", id, r.Status, r.Body)
					return
				}
				a := e2e.IntakeJSON(t, r)
				if !*a.Success || a.ShipmentID == nil || !strings.HasPrefix(*a.ShipmentID, "shp_") || a.Duplicate {
					t.Errorf("order %s: answer %s, want a new shipment", id, r.Body)
					return
				}
				shp := *a.ShipmentID
				cancel := i%4 == 0
				if cancel {
					if c := e2e.Do(t, "POST", srv.URL+"/v0/shipments/"+shp+"/cancel", nil, "Authorization", "Bearer "+intakeTokenA); c.Status != http.StatusOK {
						t.Errorf("cancel %s: %d %s", shp, c.Status, c.Body)
						return
					}
				}
				f.mu.Lock()
				f.shipments = append(f.shipments, shp)
				f.cancelled[shp] = cancel
				f.created[shp] = sent
				f.mu.Unlock()
			}
		}()
	}
	return f
}

// end stops the workers and waits for them.
func (f *orderFlow) end() {
	close(f.stop)
	f.wg.Wait()
}

// want is each shipment's event types, in order, for the shipments whose
// order was delivered after since (all with a zero since): every event of
// theirs was recorded after since.
func (f *orderFlow) want(since time.Time) map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]string{}
	for _, s := range f.shipments {
		if f.created[s].Before(since) {
			continue
		}
		out[s] = []string{"shipment.created"}
		if f.cancelled[s] {
			out[s] = append(out[s], "shipment.cancelled")
		}
	}
	return out
}

// flowsWant is want(since) of every flow in one map, and how many events
// that is.
func flowsWant(since time.Time, flows ...*orderFlow) (want map[string][]string, n int) {
	want = map[string][]string{}
	for _, f := range flows {
		for s, types := range f.want(since) {
			want[s] = types
			n += len(types)
		}
	}
	return want, n
}

// waitOutboxEmptyWithin waits for the relays to empty the outbox.
func waitOutboxEmptyWithin(t *testing.T, within time.Duration) {
	t.Helper()
	db := pgtest.Open(t, e2e.TestDSN)
	deadline := time.Now().Add(within)
	for {
		var n int
		if err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM event_outbox").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbox still holds %d events after %s", n, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkSubjects checks that the stream's events of the shipments of want
// are exactly want's types in order — none missing, none twice — and
// that the stream holds no event of any other subject unless others
// allows it.
func checkSubjects(t *testing.T, events []streamed, want map[string][]string, others bool) {
	t.Helper()
	checkEnvelope(t, events) // ids unique, Nats-Msg-Id = id
	got := map[string][]string{}
	for _, m := range events {
		got[m.Event.Subject] = append(got[m.Event.Subject], m.Event.Type)
	}
	for s, types := range want {
		if !slices.Equal(got[s], types) {
			t.Errorf("shipment %s: events %v, want %v", s, got[s], types)
		}
		delete(got, s)
	}
	if len(got) > 0 && !others {
		t.Errorf("events of other subjects: %v", slices.Collect(maps.Keys(got)))
	}
}

// streamInfo reads the stream FULFILLMENT's info through the servers of
// url, within 30 s of it being there.
func streamInfo(t *testing.T, url string) *jetstream.StreamInfo {
	t.Helper()
	js := natstest.JetStream(t, url)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s, err := js.Stream(ctx, "FULFILLMENT")
		var info *jetstream.StreamInfo
		if err == nil {
			info, err = s.Info(ctx)
		}
		cancel()
		if err == nil && (info.Cluster == nil || info.Cluster.Leader != "") {
			return info
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream FULFILLMENT with a leader within 30 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A three-server cluster, the stream with three replicas, orders arriving
// at two replicas of the service; the stream's leader is killed: every
// delivery is answered 200, and every shipment's events are in the
// stream, once each by id, in order.
func TestEventsOnAClusterThatLosesItsStreamLeader(t *testing.T) {
	intakeServer(t)
	cluster := natstest.StartCluster(t, 3)
	env := e2e.BaseEnv(e2e.TestDSN, "EVENTS_NATS_URL="+cluster.URL(), "EVENTS_STREAM_REPLICAS=3", "DB_MAX_CONNS=8")
	replicas := []*e2e.Server{e2e.StartServer(t, env), e2e.StartServer(t, env)}
	info := streamInfo(t, cluster.URL()) // created by a relay at its start
	if info.Config.Replicas != 3 || info.Config.Duplicates != 10*time.Minute || info.Config.MaxAge != 168*time.Hour {
		t.Fatalf("stream created as %+v", info.Config)
	}

	base := 7500000000000 + time.Now().UnixNano()%1000000000*1000
	flows := []*orderFlow{startOrderFlow(t, replicas[0], base, 2), startOrderFlow(t, replicas[1], base+500000000, 2)}
	time.Sleep(2 * time.Second)
	info = streamInfo(t, cluster.URL())
	leader, ok := cluster.Named(info.Cluster.Leader)
	if !ok {
		t.Fatalf("stream leader %q is none of the cluster's servers", info.Cluster.Leader)
	}
	before := info.State.Msgs
	leader.Kill()
	killed := info.Cluster.Leader
	t.Logf("stream leader %s killed with %d events in the stream", killed, before)
	// Orders go on while the others elect a leader (seconds) and after.
	time.Sleep(10 * time.Second)
	for _, f := range flows {
		f.end()
	}
	if t.Failed() {
		return
	}
	var survivors []string
	for _, s := range cluster.Servers {
		if s != leader {
			survivors = append(survivors, s.URL())
		}
	}
	url := strings.Join(survivors, ",")
	after := streamInfo(t, url)
	if after.Cluster.Leader == killed {
		t.Fatalf("the stream's leader is still %s", killed)
	}
	want, n := flowsWant(time.Time{}, flows...)
	waitOutboxEmptyWithin(t, time.Minute)
	events := readStream(t, url, n)
	warned := 0
	for _, r := range replicas {
		warned += strings.Count(r.Logs(), "relay events: the outbox keeps them")
	}
	t.Logf("%d shipments, %d events; new leader %s; %d relay warnings of failed batches", len(want), len(events),
		after.Cluster.Leader, warned)
	checkSubjects(t, events, want, false)
	if len(events) != n {
		t.Errorf("%d events in the stream, want %d", len(events), n)
	}
}

// The stream deleted while the server runs and orders arrive: the relay
// creates it again, and every event recorded after the delete is in it,
// once, in order.
func TestEventsStreamDeletedWhileRunning(t *testing.T) {
	intakeServer(t)
	broker := natstest.Start(t)
	srv := e2e.StartServer(t, eventsEnv(broker.URL()))
	streamInfo(t, broker.URL())
	flow := startOrderFlow(t, srv, 7600000000000+time.Now().UnixNano()%1000000000*1000, 2)
	time.Sleep(time.Second)
	js := natstest.JetStream(t, broker.URL())
	if err := js.DeleteStream(context.Background(), "FULFILLMENT"); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	time.Sleep(3 * time.Second)
	flow.end()
	if t.Failed() {
		return
	}
	// Shipments whose orders were delivered after the delete: their events
	// were recorded after it, and must all be in the new stream. Those of
	// shipments delivered before may be there too (published after the
	// delete), each once.
	want, n := flowsWant(deleted, flow)
	if n == 0 {
		t.Fatal("no order delivered after the delete")
	}
	waitOutboxEmptyWithin(t, 30*time.Second)
	events := readStream(t, broker.URL(), n)
	t.Logf("%d shipments after the delete, %d events in the new stream", len(want), len(events))
	checkSubjects(t, events, want, true)
	if info := streamInfo(t, broker.URL()); info.Config.Duplicates != 10*time.Minute {
		t.Errorf("stream created again as %+v", info.Config)
	}
}

// An operator's stream with a 30 s duplicate window: the server logs one
// error line, its gauge says 1, it publishes to the stream as it is, and
// the stream is unchanged.
func TestEventsOperatorStreamMisconfigured(t *testing.T) {
	intakeServer(t)
	broker := natstest.Start(t)
	js := natstest.JetStream(t, broker.URL())
	ctx := context.Background()
	operators := jetstream.StreamConfig{Name: "FULFILLMENT", Subjects: []string{"fulfillment.>"}, Duplicates: 30 * time.Second,
		MaxAge: 24 * time.Hour, Storage: jetstream.FileStorage}
	if _, err := js.CreateStream(ctx, operators); err != nil {
		t.Fatal(err)
	}
	srv := e2e.StartServer(t, eventsEnv(broker.URL()))
	shp := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"),
		strconv.FormatInt(7700000000000+time.Now().UnixNano()%1000000000, 10), nil)))
	waitOutboxEmpty(t)
	events := readStream(t, broker.URL(), 1)
	checkSubjects(t, events, map[string][]string{shp: {"shipment.created"}}, false)
	metrics := string(e2e.Do(t, "GET", srv.URL+"/metrics", nil).Body)
	if !strings.Contains(metrics, "\nfulfillment_events_stream_misconfigured 1\n") {
		t.Errorf("/metrics: fulfillment_events_stream_misconfigured is not 1")
	}
	if n := strings.Count(srv.Logs(), "events stream misconfigured"); n != 1 {
		t.Errorf("%d log lines about the stream, want 1:\n%s", n, srv.Logs())
	}
	if !strings.Contains(srv.Logs(), "duplicate window 30s") {
		t.Errorf("the log line does not name the 30s window:\n%s", srv.Logs())
	}
	s, err := js.Stream(ctx, "FULFILLMENT")
	if err != nil {
		t.Fatal(err)
	}
	got := s.CachedInfo().Config
	if got.Duplicates != operators.Duplicates || got.MaxAge != operators.MaxAge || got.Replicas != 1 ||
		!slices.Equal(got.Subjects, operators.Subjects) || got.Storage != operators.Storage {
		t.Errorf("stream changed: %+v", got)
	}
}
