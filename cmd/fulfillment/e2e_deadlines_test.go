package main

// End-to-end tests of the bad days: a network partition between the service
// and PostgreSQL, locks held by another session, twice the load the server
// can carry, extreme quantities, and a stop with the longest delay allowed.
// Every answer must come within its deadline, and nothing may be lost or
// done twice. The figures they log are the ones docs/benchmarks.md quotes.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// storefrontBudget is how long a storefront waits for a webhook's answer.
const storefrontBudget = 5 * time.Second

// smallOrder is a storefront order of one line.
func smallOrder(id int64, sku, quantity string) []byte {
	return fmt.Appendf(nil, `{"id": %d, "order_number": %d, "line_items": [{"id": 1, "sku": %q, "quantity": %s}],
		"shipping_address": {"name": "Ada Lovelace", "address1": "1 Dock St", "city": "Newark", "zip": "07102", "country_code": "US"}}`,
		id, id%100000, sku, quantity)
}

// timedClient never waits longer than twice the storefront's budget, so
// that a hang fails the test instead of stalling it.
var timedClient = &http.Client{Timeout: 2 * storefrontBudget}

// timed is one exchange and how long it took; Err is set when no answer
// came at all.
type timed struct {
	e2e.Response
	Elapsed time.Duration
	Err     error
}

// send is do for many goroutines: it reports transport errors instead of
// failing the test.
func send(method, url string, body []byte, headers ...string) timed {
	return sendWith(timedClient, method, url, body, headers...)
}

// sendWith is send through client.
func sendWith(client *http.Client, method, url string, body []byte, headers ...string) timed {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return timed{Err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// The answer time is the time to its first byte: the test's own work
	// afterwards (checking the answer against api/openapi.yaml) is not the
	// server's.
	start := time.Now()
	var answered time.Time
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { answered = time.Now() },
	}))
	resp, err := client.Do(req)
	if err != nil {
		return timed{Elapsed: time.Since(start), Err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return timed{Response: e2e.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, Elapsed: answered.Sub(start), Err: err}
}

// unavailableAnswer tells whether r is the 503 of a bad day: code
// unavailable in the route's shape, with Retry-After.
func unavailableAnswer(r timed) bool {
	if r.Err != nil || r.Status != 503 || r.Header.Get("Retry-After") == "" {
		return false
	}
	return bytes.Contains(r.Body, []byte(`"error":"unavailable"`)) || bytes.Contains(r.Body, []byte(`"code":"unavailable"`))
}

// shipmentsOfOrder counts the shipments org_e2e_in_a has for a storefront
// order.
func shipmentsOfOrder(t *testing.T, db *bun.DB, orderID int64) int {
	t.Helper()
	var n int
	err := db.NewRaw("SELECT count(*) FROM shipments WHERE organization_id = 'org_e2e_in_a' AND source_order_id = ?", orderID).
		Scan(context.Background(), &n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// reservedOf is what org_e2e_in_a's stock rows hold reserved of one SKU,
// summed over warehouses.
func reservedOf(t *testing.T, db *bun.DB, sku string) int64 {
	t.Helper()
	var n int64
	err := db.NewRaw(`SELECT coalesce(sum(s.reserved), 0) FROM product_stock s JOIN products p ON p.id = s.product_id
		WHERE p.organization_id = 'org_e2e_in_a' AND p.sku = ?`, sku).Scan(context.Background(), &n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// redeliverAll delivers every order again, as the storefront does after a
// refusal, until each is answered 200, and checks that each has exactly one
// shipment.
func redeliverAll(t *testing.T, srv *e2e.Server, orders []int64) {
	t.Helper()
	var wg sync.WaitGroup
	work := make(chan int64)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				if r := deliverUntilAnswered(t, srv, intakeKeyA, smallOrder(id, "KEY-LTH-01", "1")); r.Status != 200 {
					t.Errorf("order %d redelivered: %d %s", id, r.Status, r.Body)
				}
			}
		}()
	}
	for _, id := range orders {
		work <- id
	}
	close(work)
	wg.Wait()
	wantOneShipmentEach(t, orders)
}

// wantOneShipmentEach checks the database: one shipment per order, no
// more, no less.
func wantOneShipmentEach(t *testing.T, orders []int64) {
	t.Helper()
	db := pgtest.Open(t, e2e.TestDSN)
	var rows []struct {
		OrderID int64 `bun:"source_order_id"`
		N       int   `bun:"n"`
	}
	err := db.NewRaw(`SELECT source_order_id, count(*) AS n FROM shipments
		WHERE organization_id = 'org_e2e_in_a' AND source_order_id = ANY(?) GROUP BY source_order_id`, pgdialect.Array(orders)).
		Scan(context.Background(), &rows)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]int{}
	for _, r := range rows {
		got[r.OrderID] = r.N
	}
	lost, doubled := 0, 0
	for _, id := range orders {
		switch n := got[id]; {
		case n == 0:
			lost++
		case n > 1:
			doubled++
		}
	}
	t.Logf("%d orders: %d without a shipment, %d with more than one", len(orders), lost, doubled)
	if lost+doubled > 0 {
		t.Fatalf("%d orders lost, %d done twice", lost, doubled)
	}
}

// latencyReport summarises answer times.
func latencyReport(name string, ds []time.Duration, within time.Duration) (string, float64) {
	if len(ds) == 0 {
		return name + ": no requests", 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	in := 0
	for _, d := range sorted {
		if d < within {
			in++
		}
	}
	share := float64(in) / float64(len(sorted))
	return fmt.Sprintf("%s: %d requests, %.2f%% answered within %s, p50 %s, p99 %s, max %s", name, len(sorted),
		100*share, within, sorted[len(sorted)/2].Round(time.Millisecond),
		sorted[len(sorted)*99/100].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond)), share
}

// TestPartitionAnswersWithinTheDeadline: for 15 s the network between the
// service and PostgreSQL forwards nothing (connections stay open: no reset
// tells anyone). Every intake and read is answered within the storefront's
// 5 s with 503 and Retry-After; /healthz stays 200; /readyz turns 503, and
// back to 200 within seconds of the end. Every refused order, delivered
// again, makes exactly one shipment.
func TestPartitionAnswersWithinTheDeadline(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	intakeServer(t)
	proxy := newTCPProxy(t, dbAddr(t))
	srv := e2e.StartServer(t, e2e.BaseEnv(proxy.dsn(t)))
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8000000, "KEY-LTH-01", "1"))) // warm the pool and the key cache

	proxy.pause()
	end := time.Now().Add(15 * time.Second)
	var (
		mu       sync.Mutex
		refused  []int64
		latency  []time.Duration
		nextID   atomic.Int64
		wrong    []string
		requests sync.WaitGroup
	)
	nextID.Store(8000000)
	for w := range 4 {
		requests.Add(1)
		go func() {
			defer requests.Done()
			for time.Now().Before(end) {
				var r timed
				var id int64
				if w%2 == 0 {
					id = nextID.Add(1)
					r = send("POST", srv.URL+"/v0/storefront/orders", smallOrder(id, "KEY-LTH-01", "1"), "Authorization", "Bearer "+intakeKeyA)
				} else {
					r = send("GET", srv.URL+"/v0/shipments", nil, "Authorization", "Bearer "+intakeTokenA)
				}
				mu.Lock()
				latency = append(latency, r.Elapsed)
				if !unavailableAnswer(r) {
					wrong = append(wrong, fmt.Sprintf("%d %s (%v)", r.Status, r.Body, r.Err))
				}
				if id != 0 {
					refused = append(refused, id)
				}
				mu.Unlock()
			}
		}()
	}
	// The probes, meanwhile: liveness never touches the database; readiness
	// says no within its 2 s.
	for time.Now().Before(end.Add(-time.Second)) {
		if r := send("GET", srv.URL+"/healthz", nil); r.Status != 200 || r.Elapsed > time.Second {
			t.Errorf("/healthz during the partition: %d after %s", r.Status, r.Elapsed)
		}
		if r := send("GET", srv.URL+"/readyz", nil); r.Status != 503 || r.Elapsed > 2*time.Second {
			t.Errorf("/readyz during the partition: %d after %s", r.Status, r.Elapsed)
		}
		time.Sleep(500 * time.Millisecond)
	}
	requests.Wait()
	report, share := latencyReport("partition of 15s", latency, storefrontBudget)
	t.Log(report)
	if share < 1 || len(wrong) > 0 {
		t.Errorf("answers during the partition: %d not 503 unavailable with Retry-After (first: %v); %.2f%% within 5s, want all",
			len(wrong), wrong[:min(len(wrong), 3)], 100*share)
	}

	proxy.resume()
	healed := time.Now()
	srv.WaitFor(t, "/readyz", 200)
	t.Logf("/readyz 200 again %s after the partition ended", time.Since(healed).Round(time.Millisecond))
	if d := time.Since(healed); d > 10*time.Second {
		t.Errorf("/readyz took %s to recover", d)
	}
	redeliverAll(t, srv, refused)
}

// TestLocksHeldElsewhere: an operator's session holds a stock row FOR
// UPDATE, or LOCK TABLE shipments. Deliveries (and reads) that need them
// are answered within 5 s with 503, nothing is half-written, and the same
// orders delivered again after the lock is gone make exactly one shipment
// each.
func TestLocksHeldElsewhere(t *testing.T) {
	e2e.Exclusive(t) // measures deadlines under load: never beside a test that loads the machine
	intakeServer(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	db := pgtest.Open(t, e2e.TestDSN)
	ctx := context.Background()
	// The first order of this SKU makes its stock row at the default
	// warehouse.
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8100000, "KEY-LTH-01", "1")))

	tests := []struct {
		name  string
		lock  string
		order int64
		reads bool // GET /v0/shipments waits too
	}{
		{"a stock row FOR UPDATE", "SELECT 1 FROM product_stock WHERE product_id = 'prod_in_a_1' AND warehouse_id = 'wh_e2e_in_b' FOR UPDATE", 8100001, false},
		{"LOCK TABLE shipments", "LOCK TABLE shipments IN ACCESS EXCLUSIVE MODE", 8100002, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reserved := reservedOf(t, db, "KEY-LTH-01")
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback() }()
			if res, err := tx.ExecContext(ctx, tt.lock); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); strings.HasPrefix(tt.lock, "SELECT") && n != 1 {
				t.Fatalf("locked %d rows, want the stock row", n)
			}

			answers := make(chan timed, 2)
			go func() {
				answers <- send("POST", srv.URL+"/v0/storefront/orders", smallOrder(tt.order, "KEY-LTH-01", "1"), "Authorization", "Bearer "+intakeKeyA)
			}()
			waiters := 1
			if tt.reads {
				waiters = 2
				go func() { answers <- send("GET", srv.URL+"/v0/shipments", nil, "Authorization", "Bearer "+intakeTokenA) }()
			}
			pgtest.WaitForLockWaiters(t, db, waiters) // they really wait behind the lock
			for range waiters {
				r := <-answers
				t.Logf("behind the lock: %d after %s", r.Status, r.Elapsed.Round(time.Millisecond))
				if !unavailableAnswer(r) || r.Elapsed >= storefrontBudget {
					t.Errorf("behind the lock: %d %s after %s, want 503 unavailable within 5s", r.Status, r.Body, r.Elapsed)
				}
			}
			// The attempt is recorded as failed when the receipts table can
			// still be written; behind LOCK TABLE shipments it cannot (its
			// foreign key into shipments needs a lock too), and nothing is.
			var rec map[string]any
			switch r := e2e.GetJSON(t, srv, "/v0/storefront/orders/"+fmt.Sprint(tt.order), intakeTokenA, &rec); {
			case r.Status == 404 && tt.reads:
			case r.Status != 200 || rec["status"] != "failed" || rec["lastError"] != "unavailable":
				t.Errorf("receipt: %d %s, want failed with unavailable", r.Status, r.Body)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if n := shipmentsOfOrder(t, db, tt.order); n != 0 {
				t.Fatalf("%d shipments of a refused order", n)
			}
			if got := reservedOf(t, db, "KEY-LTH-01"); got != reserved {
				t.Fatalf("the refused order changed the reservation: %d, was %d", got, reserved)
			}
			e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(tt.order, "KEY-LTH-01", "1")))
			if a := e2e.IntakeJSON(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(tt.order, "KEY-LTH-01", "1"))); !a.Duplicate {
				t.Errorf("the third delivery is not a duplicate")
			}
			if n := shipmentsOfOrder(t, db, tt.order); n != 1 {
				t.Fatalf("%d shipments, want 1", n)
			}
			if got := reservedOf(t, db, "KEY-LTH-01"); got != reserved+1 {
				t.Fatalf("reserved %d after the redelivery and its duplicate, want %d", got, reserved+1)
			}
		})
	}
}
