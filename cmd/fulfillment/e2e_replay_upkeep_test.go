package main

// End-to-end tests of failed orders, continued: their retention, the
// `fulfillment orders` command, its metrics and traces.

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// Bodies older than FAILED_ORDER_RETENTION are purged by the server on its
// own, and by `fulfillment orders purge`; the receipt stays, and a replay
// says the body is gone.
func TestFailedOrderRetention(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "FAILED_ORDER_RETENTION=2s"))
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyA, rpOrder(8_400_001, "RP-NEW-RET")), 422, "unknown_skus")
	if rec := receiptAs(t, srv, rpTokA, "8400001"); rec["payloadKept"] != true {
		t.Fatalf("receipt %v, want the body kept", rec)
	}
	deadline := time.Now().Add(30 * time.Second)
	for receiptAs(t, srv, rpTokA, "8400001")["payloadKept"] != false {
		if time.Now().After(deadline) {
			t.Fatal("the server did not purge the body within 30 s of a 2 s retention")
		}
		time.Sleep(200 * time.Millisecond)
	}
	rec := receiptAs(t, srv, rpTokA, "8400001")
	if rec["status"] != "failed" || rec["lastError"] != "unknown_skus" || rec["payloadBytes"] != nil {
		t.Fatalf("receipt after the purge %v, want it failed, without a body", rec)
	}
	addProduct(t, "org_e2e_rp_a", "RP-NEW-RET")
	e2e.WantProblem(t, replayOrder(t, srv, rpTokA, "8400001"), 409, "payload_not_kept")
	if after := receiptAs(t, srv, rpTokA, "8400001"); !reflect.DeepEqual(after, rec) {
		t.Fatalf("a replay without a body changed the receipt: %v, was %v", after, rec)
	}
	srv.Stop(t)

	// The command, with the default retention a fresh body stays; with a
	// second, it goes.
	srv = e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyA, rpOrder(8_400_002, "RP-NEW-RET2")), 422, "unknown_skus")
	out := e2e.MustCLI(t, e2e.BaseEnv(e2e.TestDSN), "orders", "purge")
	if !regexp.MustCompile(`^purged \d+ kept bodies of failed orders whose last delivery is older than 720h0m0s\n$`).MatchString(out) {
		t.Fatalf("orders purge printed %q", out)
	}
	if receiptAs(t, srv, rpTokA, "8400002")["payloadKept"] != true {
		t.Fatal("a fresh body was purged")
	}
	time.Sleep(1100 * time.Millisecond)
	out = e2e.MustCLI(t, e2e.BaseEnv(e2e.TestDSN, "FAILED_ORDER_RETENTION=1s"), "orders", "purge")
	if m := regexp.MustCompile(`^purged (\d+) kept bodies`).FindStringSubmatch(out); m == nil || m[1] == "0" {
		t.Fatalf("orders purge printed %q, want at least one purged", out)
	}
	if receiptAs(t, srv, rpTokA, "8400002")["payloadKept"] != false {
		t.Fatal("orders purge left a body past retention")
	}
	if r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN, "FAILED_ORDER_RETENTION=soon"), "orders", "purge"); r.Code != 1 ||
		!strings.Contains(r.Stderr, "FAILED_ORDER_RETENTION") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("a bad FAILED_ORDER_RETENTION: exit %d %q", r.Code, r.Stderr)
	}
}

// `fulfillment orders`: its lines, its summary and its exit statuses.
func TestOrdersCommand(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	env := e2e.BaseEnv(e2e.TestDSN)
	// Two orders wait for a product, one can never ship (no address).
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyCLI, rpOrder(8_500_001, "RP-CLI")), 422, "unknown_skus")
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyCLI, rpOrder(8_500_002, "RP-CLI")), 422, "unknown_skus")
	noAddress := bytes.Replace(rpOrder(8_500_003, "RP-SOCK"), []byte(`"shipping_address"`), []byte(`"billing_address"`), 1)
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyCLI, noAddress), 422, "missing_shipping_address")

	line := regexp.MustCompile(`^(\d+) (failed|succeeded) error=(\S+) shipment=(\S+) attempts=(\d+) payloadBytes=(\S+) lastReceivedAt=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	out := e2e.MustCLI(t, env, "orders", "list", "--org", "org_e2e_rp_cli", "--status", "failed")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("orders list printed %q, want 3 lines", out)
	}
	for i, want := range []string{"8500003", "8500002", "8500001"} {
		m := line.FindStringSubmatch(lines[i])
		if m == nil || m[1] != want || m[2] != "failed" || m[6] == "-" {
			t.Fatalf("line %d %q, want order %s failed with its body's size", i, lines[i], want)
		}
	}
	if out := e2e.MustCLI(t, env, "orders", "list", "--org", "org_e2e_rp_cli", "--error", "missing_shipping_address"); !strings.HasPrefix(out, "8500003 failed error=missing_shipping_address ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("orders list --error printed %q", out)
	}

	addProduct(t, "org_e2e_rp_cli", "RP-CLI")
	r := e2e.RunCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_cli", "--all-failed")
	got := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	if len(got) == 4 {
		slices.Sort(got[:3]) // in the order the workers finish
	}
	if r.Code != 1 || len(got) != 4 || !regexp.MustCompile(`^8500001 succeeded shp_\w+$`).MatchString(got[0]) ||
		!regexp.MustCompile(`^8500002 succeeded shp_\w+$`).MatchString(got[1]) || got[2] != "8500003 failed missing_shipping_address" ||
		got[3] != "replayed 3: 2 succeeded, 0 duplicate, 1 failed" || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("replay --all-failed: exit %d\n%s\nstderr %q", r.Code, r.Stdout, r.Stderr)
	}
	shipment := strings.Fields(got[0])[2]
	// Again: only the order that still fails is replayed.
	r = e2e.RunCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_cli", "--all-failed")
	if r.Code != 1 || r.Stdout != "8500003 failed missing_shipping_address\nreplayed 1: 0 succeeded, 0 duplicate, 1 failed\n" {
		t.Fatalf("second replay --all-failed: exit %d %q", r.Code, r.Stdout)
	}
	r = e2e.RunCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_cli", "--order", "8500001")
	if r.Code != 0 || r.Stdout != "8500001 duplicate "+shipment+"\nreplayed 1: 0 succeeded, 1 duplicate, 0 failed\n" || r.Stderr != "" {
		t.Fatalf("replay of a done order: exit %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	r = e2e.RunCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_b", "--order", "8500001")
	if r.Code != 1 || r.Stdout != "8500001 failed not_found\nreplayed 1: 0 succeeded, 0 duplicate, 1 failed\n" {
		t.Fatalf("replay of another organization's order: exit %d %q", r.Code, r.Stdout)
	}
	if n := shipmentsOf(t, "org_e2e_rp_cli", 8_500_001); n != 1 {
		t.Fatalf("%d shipments of 8500001", n)
	}
	// An organization that does not exist is not "nothing to replay": exit 1, no summary.
	if r := e2e.RunCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_nobody", "--all-failed"); r.Code != 1 || r.Stdout != "" ||
		!strings.Contains(r.Stderr, "org_e2e_rp_nobody") {
		t.Fatalf("replay of an unknown organization: exit %d %q %q", r.Code, r.Stdout, r.Stderr)
	}

	for _, args := range [][]string{
		{"orders"}, {"orders", "nope"}, {"orders", "list"}, {"orders", "list", "--org", "o", "--status", "processing"},
		{"orders", "list", "--org", "o", "--error", "nope"}, {"orders", "replay", "--org", "o"},
		{"orders", "replay", "--all-failed"}, {"orders", "replay", "--org", "o", "--order", "1", "--all-failed"},
		{"orders", "replay", "--org", "o", "--order", "abc"}, {"orders", "replay", "--org", "o", "--order", "-5"},
		{"orders", "replay", "--org", "o", "--all-failed", "--workers", "0"}, {"orders", "purge", "now"},
	} {
		if r := e2e.RunCLI(t, env, args...); r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "fulfillment: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and a usage line", args, r.Code, r.Stdout, r.Stderr)
		}
	}
}

// `orders replay --all-failed` stops cleanly on SIGINT: what was replayed
// stays replayed, nothing is half done, and running it again finishes.
func TestOrdersReplayInterrupted(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	const org, n = "org_e2e_rp_int", 400
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				wantIntakeError(t, deliverUntilAnswered(t, srv, rpKeyInt, rpOrder(int64(8_600_000+i), "RP-NEW-INT")), 422, "unknown_skus")
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	addProduct(t, org, "RP-NEW-INT")

	cmd := exec.Command(e2e.BinPath, "orders", "replay", "--org", org, "--all-failed", "--workers", "2")
	cmd.Env = e2e.BaseEnv(e2e.TestDSN)
	var stdout, stderr e2e.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for strings.Count(stdout.String(), "\n") < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	summary := lines[len(lines)-1]
	m := regexp.MustCompile(`^replayed (\d+): (\d+) succeeded, 0 duplicate, 0 failed$`).FindStringSubmatch(summary)
	if m == nil || m[1] != m[2] || fmt.Sprint(len(lines)-1) != m[1] {
		t.Fatalf("summary %q after %d lines", summary, len(lines)-1)
	}
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("interrupted replay: exit %d (%v), stderr %q", code, err, stderr.String())
	}
	if m[1] == fmt.Sprint(n) {
		t.Fatalf("all %d orders were replayed before the interrupt: the test proves nothing", n)
	}
	// Every order is either done with its one shipment or still failed
	// with its body: nothing in between.
	db := pgtest.Open(t, e2e.TestDSN)
	var bad int
	err = db.NewRaw(`SELECT count(*) FROM order_receipts r
		LEFT JOIN shipments s ON s.organization_id = r.organization_id AND s.source_order_id = r.order_id
		WHERE r.organization_id = ? AND r.order_id BETWEEN 8600000 AND 8600399
		AND NOT ((r.status = 'succeeded' AND r.payload IS NULL AND s.id = r.shipment_id)
		      OR (r.status = 'failed' AND r.payload IS NOT NULL AND s.id IS NULL))`, org).Scan(context.Background(), &bad)
	if err != nil || bad != 0 {
		t.Fatalf("%d orders half done (%v)", bad, err)
	}
	r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "orders", "replay", "--org", org, "--all-failed")
	want := fmt.Sprintf("replayed %d: %d succeeded, 0 duplicate, 0 failed", n-atoi(t, m[1]), n-atoi(t, m[1]))
	if r.Code != 0 || !strings.HasSuffix(r.Stdout, want+"\n") {
		t.Fatalf("the second run: exit %d, last line of %q, want %q", r.Code, r.Stdout, want)
	}
	var done int
	if err := db.NewRaw(`SELECT count(*) FROM shipments WHERE organization_id = ? AND source_order_id BETWEEN 8600000 AND 8600399`, org).
		Scan(context.Background(), &done); err != nil || done != n {
		t.Fatalf("%d shipments (%v), want %d", done, err, n)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The gauges: failed orders that keep their body, by code, and the age of
// the oldest, on /metrics.
func TestFailedOrderMetrics(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyNoWH, rpOrder(8_700_001, "RP-SOCK")), 422, "no_warehouse")
	time.Sleep(6 * time.Second) // past the collector's refresh interval
	fams := scrape(t, srv)
	counts := series(fams["fulfillment_storefront_failed_orders"])
	for _, code := range []string{"invalid_payload", "unknown_skus", "missing_sku", "missing_shipping_address", "no_warehouse", "unavailable", "internal", "other"} {
		if _, ok := counts["code="+code]; !ok {
			t.Errorf("no series for code %s: %v", code, counts)
		}
	}
	if counts["code=no_warehouse"] < 1 || len(counts) != 8 {
		t.Errorf("failed orders %v, want no_warehouse ≥ 1 and eight codes", counts)
	}
	age := series(fams["fulfillment_storefront_failed_order_oldest_age_seconds"])[""]
	if age < 6 {
		t.Errorf("oldest failed order's age %v s, want at least the 6 s waited", age)
	}
}

// The replay's trace: the server span of the replay route, the replay's
// use case linked to the trace of the delivery that failed, the intake's
// use case under it; the receipt names the replay's trace.
func TestReplayTrace(t *testing.T) {
	replaySetup(t)
	j := startJaeger(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+j.OTLP,
		"OTEL_SERVICE_NAME=fulfillment-e2e-replay", "OTEL_BSP_SCHEDULE_DELAY=100"))
	failed := e2e.Deliver(t, srv, rpKeyA, rpOrder(8_800_001, "RP-NEW-TRACE"))
	wantIntakeError(t, failed, 422, "unknown_skus")
	addProduct(t, "org_e2e_rp_a", "RP-NEW-TRACE")
	r := replayOrder(t, srv, rpTokA, "8800001")
	shipment := e2e.WantShipment(t, r)
	failedTrace, replayTrace := failed.Header.Get("X-Trace-Id"), r.Header.Get("X-Trace-Id")
	if rec := receiptAs(t, srv, rpTokA, "8800001"); rec["traceId"] != replayTrace {
		t.Fatalf("receipt trace %v, want the replay's %s", rec["traceId"], replayTrace)
	}
	spans := j.wholeTrace(t, replayTrace)
	byName := map[string]otlpSpan{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	srvSpan, replaySpan, intakeSpan := byName["POST /v0/storefront/orders/{orderId}/replay"], byName["ReplayStorefrontOrder"], byName["ReceiveStorefrontOrder"]
	if srvSpan.SpanID == "" || replaySpan.ParentSpanID != srvSpan.SpanID || intakeSpan.ParentSpanID != replaySpan.SpanID {
		t.Fatalf("want server → ReplayStorefrontOrder → ReceiveStorefrontOrder; spans: %v", spanNames(spans))
	}
	if !slices.Contains(replaySpan.LinkedTraces, failedTrace) || replaySpan.Attrs["fulfillment.replay.failed_trace_id"] != failedTrace {
		t.Errorf("replay span links %v, attributes %v; want a link to the failed delivery's trace %s", replaySpan.LinkedTraces, replaySpan.Attrs, failedTrace)
	}
	if intakeSpan.Attrs["fulfillment.intake.outcome"] != "created" || intakeSpan.Attrs["shipment.id"] != shipment ||
		replaySpan.Attrs["storefront.order.id"] != "8800001" || replaySpan.Attrs["organization.id"] != "org_e2e_rp_a" {
		t.Errorf("attributes: replay %v, intake %v", replaySpan.Attrs, intakeSpan.Attrs)
	}
}

// The replay reads a kept body by the intake's rules: a SKU that is not
// UTF-8, refused and kept byte for byte, is refused again on replay, naming
// the member, and counted; never replaced and shipped.
func TestReplayGuessesNoValue(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	const id = int64(9007199254741013)
	body := bytes.Replace(rpOrder(id, "RP-SOCK"), []byte(`"sku": "RP-SOCK",`), []byte("\"sku\": \"RP-SOCK\xff\","), 1)
	const message = "line_items[0].sku: must be valid UTF-8"
	if a := wantIntakeError(t, e2e.Deliver(t, srv, rpKeyA, body), 400, "invalid_payload"); a.Message != message {
		t.Fatalf("message %q, want %q", a.Message, message)
	}
	if got := storedBody(t, "org_e2e_rp_a", id); !bytes.Equal(got, body) {
		t.Fatalf("kept body differs from the bytes sent:\n got %q\nwant %q", got, body)
	}
	r := replayOrder(t, srv, rpTokA, fmt.Sprint(id))
	if a := wantIntakeError(t, r, 400, "invalid_payload"); a.Message != message {
		t.Errorf("replay: message %q, want %q", a.Message, message)
	}
	rec := receiptAs(t, srv, rpTokA, fmt.Sprint(id))
	if rec["status"] != "failed" || rec["lastError"] != "invalid_payload" || rec["attempts"] != float64(2) || rec["payloadKept"] != true {
		t.Errorf("receipt after the replay %v, want failed, 2 attempts, kept", rec)
	}
	if n := shipmentsOf(t, "org_e2e_rp_a", id); n != 0 {
		t.Errorf("%d shipments, want none", n)
	}
}
