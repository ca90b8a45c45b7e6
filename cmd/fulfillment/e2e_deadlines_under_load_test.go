package main

// End-to-end tests of the bad days, continued: twice the load the server
// can carry, extreme quantities, and a stop with the longest delay allowed.

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// TestOverloadOpenLoop: the maximum rate measured in a closed loop, then an
// open loop at twice that rate, which must make the server shed, the
// storefront's deliveries in flight capped at 2,000 (storefrontInFlight).
// At least 99 % of the requests are answered within 5 s of when they were
// due, each 200 or 503/429 with Retry-After; every acknowledged order has
// exactly one shipment, and every refused one, delivered again, too.
func TestOverloadOpenLoop(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	intakeServer(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	var nextID atomic.Int64
	nextID.Store(8200000)
	deliverNew := func() (int64, timed) {
		id := nextID.Add(1)
		return id, send("POST", srv.URL+"/v0/storefront/orders", smallOrder(id, "KEY-LTH-01", "1"), "Authorization", "Bearer "+intakeKeyA)
	}

	// The maximum: 8 clients in a closed loop for 3 s.
	var served atomic.Int64
	var acked []int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < 3*time.Second {
				id, r := deliverNew()
				if r.Status == 200 {
					served.Add(1)
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	maxRate := float64(served.Load()) / time.Since(start).Seconds()
	if maxRate < 1 {
		t.Fatalf("closed loop served %d orders", served.Load())
	}

	// Twice that, in an open loop: requests leave on schedule whatever the
	// answers do. The load must really be more than the server serves: if
	// nothing was shed, the closed loop underrated the server (a noisy
	// machine), and the loop runs again at twice the rate, at most twice
	// more; a server that never sheds fails the test.
	var refused []int64
	for rate := 2 * maxRate; ; rate *= 2 {
		r := openLoop(rate, 6*time.Second, deliverNew)
		acked, refused = append(acked, r.acked...), append(refused, r.refused...)
		report, share := latencyReport(fmt.Sprintf("open loop at %.0f/s (%.0f × the closed loop's %.0f/s)", rate, rate/maxRate, maxRate),
			r.latency, storefrontBudget)
		t.Logf("%s; answers %v", report, r.codes)
		if share < 0.99 || len(r.wrong) > 0 {
			t.Errorf("%.2f%% within 5s (want ≥ 99%%); %d answers not 200 or 503/429 with Retry-After (first: %v)",
				100*share, len(r.wrong), r.wrong[:min(len(r.wrong), 3)])
		}
		if shed := r.codes[503] + r.codes[429]; shed > 0 {
			break
		}
		if rate >= 8*maxRate {
			t.Errorf("nothing was shed at %.0f/s, 8 × the closed loop's rate", rate)
			break
		}
	}
	if len(acked) == 0 {
		t.Fatal("no order was acknowledged")
	}
	wantOneShipmentEach(t, acked)
	redeliverAll(t, srv, refused)
}

// openLoopResult is what an open loop of deliveries came to.
type openLoopResult struct {
	latency        []time.Duration
	codes          map[int]int
	acked, refused []int64 // order IDs answered 200, and 503/429 with Retry-After (or wrongly)
	wrong          []string
}

// storefrontInFlight is how many deliveries a storefront has in flight at
// most: one due while that many wait for their answers waits too, and its
// time counts from when it was due.
const storefrontInFlight = 2000

// openLoop sends deliveries at rate per second for d, each on schedule
// whatever the earlier ones' answers do — as long as fewer than
// storefrontInFlight are in flight — and waits for every answer. A
// delivery's latency counts from when it was due, so that answers slow
// enough to fill the storefront's in-flight limit count against the
// deliveries they hold back.
func openLoop(rate float64, d time.Duration, deliverNew func() (int64, timed)) openLoopResult {
	res := openLoopResult{codes: map[int]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	inFlight := make(chan struct{}, storefrontInFlight)
	start := time.Now()
	for i := range int(rate * d.Seconds()) {
		due := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		time.Sleep(time.Until(due))
		wg.Go(func() {
			inFlight <- struct{}{}
			held := time.Since(due)
			id, r := deliverNew()
			<-inFlight
			mu.Lock()
			defer mu.Unlock()
			res.latency = append(res.latency, held+r.Elapsed)
			res.codes[r.Status]++
			switch {
			case r.Status == 200:
				res.acked = append(res.acked, id)
			case (r.Status == 503 || r.Status == 429) && r.Header.Get("Retry-After") != "":
				res.refused = append(res.refused, id)
			default:
				res.wrong = append(res.wrong, fmt.Sprintf("%d %s (%v)", r.Status, r.Body, r.Err))
				res.refused = append(res.refused, id)
			}
		})
	}
	wg.Wait()
	return res
}

// TestExtremeQuantities: quantities outside 1 … 1,000,000,000 are a client's
// mistake (400), never a 500 or a stored reservation, and later orders of
// the same SKU work.
func TestExtremeQuantities(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	srv := intakeServer(t)
	db := pgtest.Open(t, e2e.TestDSN)
	reserved := reservedOf(t, db, "SOCK-MER-CH-4346")
	for i, q := range []string{"4611686018427387904", "9223372036854775807", "9223372036854775808", "1000000001", "0", "-1", "1.5", `"7"`} {
		r := e2e.Deliver(t, srv, intakeKeyA, smallOrder(int64(8300000+i), "SOCK-MER-CH-4346", q))
		if a := wantIntakeError(t, r, 400, "invalid_payload"); !strings.Contains(a.Message, "quantity") {
			t.Errorf("quantity %s: message %q does not name the quantity", q, a.Message)
		}
	}
	// Two lines of one SKU that add up beyond the bound.
	two := []byte(`{"id": 8300100, "line_items": [{"id": 1, "sku": "SOCK-MER-CH-4346", "quantity": 600000000},
		{"id": 2, "sku": " SOCK-MER-CH-4346", "quantity": 400000001}], "shipping_address": {"name": "A"}}`)
	wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, two), 400, "invalid_payload")
	if got := reservedOf(t, db, "SOCK-MER-CH-4346"); got != reserved {
		t.Fatalf("refused orders changed the reservation: %d, was %d", got, reserved)
	}
	// The bound itself is accepted, and the next order of the SKU works.
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8300200, "SOCK-MER-CH-4346", "1000000000")))
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8300201, "SOCK-MER-CH-4346", "1")))
	if got := reservedOf(t, db, "SOCK-MER-CH-4346"); got != reserved+1_000_000_001 {
		t.Fatalf("reserved %d after the two orders, want %d", got, reserved+1_000_000_001)
	}

	// Drafts through the API follow the same rule.
	tok := e2e.MintToken(t, "org_e2e_in_a", "shipments")
	for _, q := range []any{int64(1000000001), int64(9223372036854775807), 0} {
		body := map[string]any{"warehouseId": "wh_e2e_in_b", "items": []any{map[string]any{"productId": "prod_in_a_0", "quantity": q}}}
		p := e2e.WantProblem(t, e2e.Do(t, "POST", srv.URL+"/v0/shipments/pick-pack", body, "Authorization", "Bearer "+tok), 400, "invalid_parameter")
		if p.Parameter != "items[0].quantity" {
			t.Errorf("quantity %v: parameter %q", q, p.Parameter)
		}
	}
	summed := map[string]any{"warehouseId": "wh_e2e_in_b", "items": []any{
		map[string]any{"productId": "prod_in_a_0", "quantity": 999999999}, map[string]any{"productId": "prod_in_a_0", "quantity": 2}}}
	e2e.WantProblem(t, e2e.Do(t, "POST", srv.URL+"/v0/shipments/pick-pack", summed, "Authorization", "Bearer "+tok), 400, "invalid_parameter")
}

// TestShutdownWithinTheTimeout: with SHUTDOWN_DELAY at the longest the
// settings allow, a stop still drains a request that is in flight when the
// listener closes, flushes its spans to the collector, and exits 0 within
// SHUTDOWN_TIMEOUT.
func TestShutdownWithinTheTimeout(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	intakeServer(t)
	collector := newSpanCollector(t)
	proxy := newTCPProxy(t, dbAddr(t))
	// 8 s in all: a delay of 5 s, requests of at most 2 s, 1 s to close and flush.
	const delay = 5 * time.Second
	srv := e2e.StartServer(t, e2e.BaseEnv(proxy.dsn(t), "SHUTDOWN_TIMEOUT=8s", "REQUEST_TIMEOUT=2s", "SHUTDOWN_DELAY=5s",
		"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.url, "OTEL_BSP_SCHEDULE_DELAY=60000"))
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8400000, "KEY-LTH-01", "1")))

	if err := srv.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	srv.WaitFor(t, "/readyz", 503)
	// Near the end of the delay the listener still serves: this request
	// waits on a paused database until its deadline, so it is in flight
	// when the listener closes.
	proxy.pause()
	time.Sleep(time.Until(stopped.Add(delay - 800*time.Millisecond)))
	inflight := make(chan timed, 1)
	go func() {
		inflight <- send("POST", srv.URL+"/v0/storefront/orders", smallOrder(8400001, "KEY-LTH-01", "1"), "Authorization", "Bearer "+intakeKeyA)
	}()
	proxy.waitHeld(t)
	e2e.WaitListenerClosed(t, srv, stopped, delay, delay+time.Second)
	select {
	case r := <-inflight:
		t.Fatalf("the request was answered (%d after %s) before the listener closed: nothing left to drain", r.Status, r.Elapsed)
	default:
	}
	r := <-inflight
	if !unavailableAnswer(r) || r.Elapsed > 2*time.Second+500*time.Millisecond {
		t.Errorf("request in flight during the drain: %d %s after %s (%v), want 503 within its 2s deadline", r.Status, r.Body, r.Elapsed, r.Err)
	}
	proxy.resume()
	traceID := r.Header.Get("X-Trace-Id")
	if err := srv.Wait(15 * time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.Logs())
	}
	took := time.Since(stopped)
	t.Logf("stopped in %s (SHUTDOWN_TIMEOUT 8s, delay 5s); the drained request answered after %s", took.Round(time.Millisecond), r.Elapsed.Round(time.Millisecond))
	if took > 8*time.Second {
		t.Errorf("the stop took %s, more than SHUTDOWN_TIMEOUT", took)
	}
	if !collector.saw(t, traceID) {
		t.Errorf("the spans of trace %s were not flushed to the collector", traceID)
	}
}

// spanCollector is an OTLP/HTTP endpoint that keeps what it receives.
type spanCollector struct {
	url    string
	mu     sync.Mutex
	bodies [][]byte
}

func newSpanCollector(t *testing.T) *spanCollector {
	t.Helper()
	c := &spanCollector{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.bodies = append(c.bodies, b)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(srv.Close)
	c.url = srv.URL
	return c
}

// saw tells whether an export carried a span of the trace (hex ID): OTLP
// protobuf holds trace IDs as their 16 raw bytes.
func (c *spanCollector) saw(t *testing.T, traceID string) bool {
	t.Helper()
	id, err := hex.DecodeString(traceID)
	if err != nil || len(id) != 16 {
		t.Fatalf("X-Trace-Id %q", traceID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.bodies {
		if bytes.Contains(b, id) {
			return true
		}
	}
	return false
}
