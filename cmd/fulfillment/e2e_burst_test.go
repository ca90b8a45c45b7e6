package main

// End-to-end tests of storefront bursts: many deliveries at once, each
// needing about a millisecond of database time, are served — they wait for
// an admission slot within their deadline instead of being shed — also
// across replicas and while the server drains after SIGTERM.

import (
	"encoding/json"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// uncheckedClient is timedClient without the check of every answer
// against api/openapi.yaml: for bursts of thousands of answers of one shape,
// a sample of which goes through timedClient, so that the test measures the
// server rather than the check.
var uncheckedClient = &http.Client{Timeout: 2 * storefrontBudget, Transport: uncheckedTransport{}}

type uncheckedTransport struct{}

func (uncheckedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return e2e.Answers.Base.RoundTrip(r)
}

// burst sends every body at once to its server and returns the answers in
// the same order; checked sends them through timedClient.
func burst(checked bool, urls []string, bodies [][]byte) []timed {
	client := uncheckedClient
	if checked {
		client = timedClient
	}
	out := make([]timed, len(bodies))
	var wg sync.WaitGroup
	for i, body := range bodies {
		wg.Go(func() {
			out[i] = sendWith(client, "POST", urls[i]+"/v0/storefront/orders", body, "Authorization", "Bearer "+intakeKeyA)
		})
	}
	wg.Wait()
	return out
}

// wantAllServed checks that every answer of a burst is 200 with the
// order's one shipment: the same shipmentId in each, exactly one of them
// not a duplicate, and one shipment in the database. It returns the
// shipment's ID.
func wantAllServed(t *testing.T, orderID int64, rs []timed) {
	t.Helper()
	var ids []string
	fresh, failed := 0, 0
	for _, r := range rs {
		if r.Err != nil || r.Status != 200 {
			if failed++; failed <= 3 {
				t.Errorf("order %d: %d %s (%v) after %s, want 200", orderID, r.Status, r.Body, r.Err, r.Elapsed)
			}
			continue
		}
		var a e2e.IntakeAnswer
		if err := json.Unmarshal(r.Body, &a); err != nil || a.ShipmentID == nil {
			t.Errorf("order %d: answer %s, want a shipment", orderID, r.Body)
			continue
		}
		ids = append(ids, *a.ShipmentID)
		if !a.Duplicate {
			fresh++
		}
	}
	if failed > 0 {
		t.Errorf("order %d: %d of %d deliveries not answered 200", orderID, failed, len(rs))
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Errorf("order %d: answers name shipments %s and %s", orderID, ids[0], id)
			break
		}
	}
	if failed == 0 && fresh != 1 {
		t.Errorf("order %d: %d answers without duplicate, want 1", orderID, fresh)
	}
}

// 40 deliveries of one order at once to one server, three times: every
// delivery is answered 200 with the order's one shipment. (With a fixed
// limit of 16 requests that refused the rest at once, about half were 503.)
func TestIntakeBurstOfOneOrderIsServed(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	srv := intakeServer(t)
	const deliveries = 40
	var ids []int64
	for round := range 3 {
		id := int64(8700000 + round)
		ids = append(ids, id)
		urls, bodies := make([]string, deliveries), make([][]byte, deliveries)
		for i := range deliveries {
			urls[i], bodies[i] = srv.URL, smallOrder(id, "KEY-LTH-01", "1")
		}
		start := time.Now()
		rs := burst(true, urls, bodies)
		t.Logf("round %d: %d deliveries of order %d answered in %s", round, deliveries, id, time.Since(start).Round(time.Millisecond))
		wantAllServed(t, id, rs)
	}
	wantOneShipmentEach(t, ids)
}

// Three replicas on one database: 32 deliveries of each of 200 orders,
// spread over the replicas, five orders (160 deliveries) at once. Every
// delivery is answered 200 at the first try, and each order has exactly
// one shipment. (Ten or twenty orders at once can be more than two shared
// CPUs serve within the deadline with the race detector on: some are shed
// then, as they should be.)
func TestIntakeBurstOverThreeReplicasIsServed(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	intakeServer(t)
	replicas := []*e2e.Server{e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)), e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)), e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))}
	const orders, deliveries, batch = 200, 32, 5
	ids := make([]int64, orders)
	start := time.Now()
	for first := 0; first < orders; first += batch {
		var urls []string
		var bodies [][]byte
		for i := first; i < first+batch; i++ {
			ids[i] = int64(8710000 + i)
			for j := range deliveries {
				urls = append(urls, replicas[(i+j)%len(replicas)].URL)
				bodies = append(bodies, smallOrder(ids[i], "KEY-LTH-01", "1"))
			}
		}
		rs := burst(first == 0, urls, bodies)
		for i := first; i < first+batch; i++ {
			k := (i - first) * deliveries
			wantAllServed(t, ids[i], rs[k:k+deliveries])
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d deliveries of %d orders over %d replicas answered 200 in %s", orders*deliveries, orders, len(replicas),
		time.Since(start).Round(time.Millisecond))
	wantOneShipmentEach(t, ids)
}

// Requests in flight when SIGTERM arrives — running or waiting for an
// admission slot — are served before the server exits: 40 deliveries of
// 40 orders are held by a paused database (so that none can be answered
// before the signal), SIGTERM arrives, the listener closes, the database
// comes back: every one is answered 200 and the server exits 0.
func TestIntakeBurstInFlightAtSIGTERMIsServed(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	intakeServer(t)
	proxy := newTCPProxy(t, dbAddr(t))
	srv := e2e.StartServer(t, e2e.BaseEnv(proxy.dsn(t)))
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8720000, "KEY-LTH-01", "1"))) // the pool is warm

	const n = 40
	ids := make([]int64, n)
	urls, bodies := make([]string, n), make([][]byte, n)
	for i := range n {
		ids[i] = int64(8720001 + i)
		urls[i], bodies[i] = srv.URL, smallOrder(ids[i], "KEY-LTH-01", "1")
	}
	proxy.pause()
	answered := make(chan []timed, 1)
	go func() { answered <- burst(true, urls, bodies) }()
	proxy.waitHeld(t)
	time.Sleep(300 * time.Millisecond) // every request has reached the server: running, or waiting for a slot

	if err := srv.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	e2e.WaitListenerClosed(t, srv, stopped, 0, 2*time.Second)
	select {
	case <-answered:
		t.Fatal("the burst was answered before SIGTERM: nothing was in flight")
	default:
	}
	proxy.resume()
	rs := <-answered
	for i, r := range rs {
		wantAllServed(t, ids[i], []timed{r})
	}
	if err := srv.Wait(15 * time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.Logs())
	}
	wantOneShipmentEach(t, ids)
	if t.Failed() {
		t.Logf("server log:\n%s", tail(srv.Logs(), 4000))
	}
}
