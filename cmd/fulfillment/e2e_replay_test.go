package main

// End-to-end tests of failed orders (docs/storefront-intake.md, "When an
// order fails"): the body of a refused delivery is kept byte for byte, an
// operator lists the failed orders and replays them once the data is fixed
// — over HTTP and with `fulfillment orders` — exactly once against
// storefront redeliveries and replicas, and the bodies are purged after
// FAILED_ORDER_RETENTION.

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
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
)

const (
	rpKeyA    = "fk_test_E2EreplayAaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	rpKeyB    = "fk_test_E2EreplayBbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	rpKeyCLI  = "fk_test_E2EreplayCLIcccccccccccccccccccccccccccc"
	rpKeyNoWH = "fk_test_E2EreplayNoWarehouseeeeeeeeeeeeeeeeeeee"
	rpKeyInt  = "fk_test_E2EreplayInterruptediiiiiiiiiiiiiiiiiii"
)

// replayFixture: org_e2e_rp_a and org_e2e_rp_b each have a warehouse and
// the product RP-SOCK; org_e2e_rp_cli is the CLI's (RP-SOCK too);
// org_e2e_rp_nowh has no warehouse; org_e2e_rp_int is the interrupted
// replay's alone, so that no other test's failed order is in its way.
func replayFixture() map[string]any {
	orgs := []string{"org_e2e_rp_a", "org_e2e_rp_b", "org_e2e_rp_cli", "org_e2e_rp_nowh", "org_e2e_rp_int"}
	var organizations, warehouses, products, keys []any
	for i, org := range orgs {
		organizations = append(organizations, map[string]any{"id": org, "name": org})
		if org != "org_e2e_rp_nowh" {
			warehouses = append(warehouses, fixtureWarehouse("wh_"+org[4:], "DC "+org, true, org))
		}
		products = append(products, map[string]any{"id": fmt.Sprintf("prod_e2e_rp_%d", i), "organizationId": org, "sku": "RP-SOCK", "name": "Socks"})
	}
	for _, k := range [][2]string{{"org_e2e_rp_a", rpKeyA}, {"org_e2e_rp_b", rpKeyB}, {"org_e2e_rp_cli", rpKeyCLI}, {"org_e2e_rp_nowh", rpKeyNoWH}, {"org_e2e_rp_int", rpKeyInt}} {
		keys = append(keys, map[string]any{"id": "key_" + k[0][4:], "organizationId": k[0], "key": k[1],
			"scopes": []string{"shipments", "inventory"}, "revoked": false})
	}
	return map[string]any{"organizations": organizations, "warehouses": warehouses, "products": products, "apiKeys": keys}
}

var (
	replayOnce             sync.Once
	rpTokA, rpTokB, rpTokI string // shipments of org a, of org b; inventory only of org a
)

func replaySetup(t *testing.T) {
	t.Helper()
	replayOnce.Do(func() {
		seedFixture(t, testDSN, replayFixture())
		rpTokA = mintToken(t, "org_e2e_rp_a", "shipments")
		rpTokB = mintToken(t, "org_e2e_rp_b", "shipments")
		rpTokI = mintToken(t, "org_e2e_rp_a", "inventory")
	})
	if rpTokA == "" {
		t.Fatal("the replay fixture could not be set up (see the first test that failed)")
	}
}

// addProduct makes sku a product of org: the operator's fix.
func addProduct(t *testing.T, org, sku string) {
	t.Helper()
	seedFixture(t, testDSN, map[string]any{"products": []any{map[string]any{
		"id": "prod_" + strings.ToLower(strings.NewReplacer("-", "_").Replace(sku)) + "_" + org[8:], "organizationId": org, "sku": sku, "name": sku}}})
}

// rpOrder is an order as a storefront sends it, written out so that its
// bytes are known: IDs above 2^53, unicode, JSON nulls in mapped strings,
// one SKU on two lines (one with white space around it), a line that needs
// no shipping, members the service does not read; newSKU is the SKU the
// organization does not have yet.
func rpOrder(id int64, newSKU string) []byte {
	return fmt.Appendf(nil, `{"id": %d, "order_number": 9007199254740993, "test": false, "cancelled_at": null,
  "note": "Bitte klingeln 🔔 — 山田さん \u00e9",
  "customer": {"id": 9007199254740995, "email": "zoe@example.de", "tags": null},
  "shipping_address": {"name": "Zoë Müller", "company": null, "address1": "Straße des 17. Juni 135", "address2": null,
    "city": "Berlin", "province_code": null, "zip": "10623", "country_code": "DE", "phone": null},
  "line_items": [
    {"id": 9007199254740997, "sku": "RP-SOCK", "quantity": 2, "requires_shipping": true, "title": "Socken 🧦"},
    {"id": 9007199254740999, "sku": " %s ", "quantity": 1, "requires_shipping": true},
    {"id": 9007199254741001, "sku": "RP-SOCK\t", "quantity": 3, "requires_shipping": true},
    {"id": 9007199254741003, "sku": null, "quantity": 1, "requires_shipping": false, "title": "Gift card"}
  ]}`, id, newSKU)
}

func replayOrder(t *testing.T, srv *server, token string, orderID string) response {
	t.Helper()
	return do(t, "POST", srv.URL+"/v0/storefront/orders/"+orderID+"/replay", nil, "Authorization", "Bearer "+token)
}

// receiptAs reads an order receipt with token; status 200 or the test fails.
func receiptAs(t *testing.T, srv *server, token, orderID string) map[string]any {
	t.Helper()
	var m map[string]any
	if r := getJSON(t, srv, "/v0/storefront/orders/"+orderID, token, &m); r.Status != 200 {
		t.Fatalf("receipt of %s: %d %s", orderID, r.Status, r.Body)
	}
	return m
}

// listReceipts reads a list of receipts with token; status 200 or the test
// fails.
func listReceipts(t *testing.T, srv *server, token, query string) []map[string]any {
	t.Helper()
	var out []map[string]any
	if r := getJSON(t, srv, "/v0/storefront/orders?"+query, token, &out); r.Status != 200 {
		t.Fatalf("list ?%s: %d %s", query, r.Status, r.Body)
	}
	return out
}

// storedBody reads the body kept with an order's receipt from the database.
func storedBody(t *testing.T, org string, orderID int64) []byte {
	t.Helper()
	db := pgtest.Open(t, testDSN)
	var b []byte
	if err := db.NewRaw("SELECT payload FROM order_receipts WHERE organization_id = ? AND order_id = ?", org, orderID).
		Scan(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReplayAfterTheDataIsFixed(t *testing.T) {
	replaySetup(t)
	srv := startServer(t, baseEnv(testDSN))
	const id = int64(9007199254740993) // above 2^53
	sid := fmt.Sprint(id)
	body := rpOrder(id, "RP-NEW-1")

	// Refused: the body is kept as sent, its size on the receipt and in the list.
	a := wantIntakeError(t, deliver(t, srv, rpKeyA, body), 422, "unknown_skus")
	if !reflect.DeepEqual(a.SKUs, []string{"RP-NEW-1"}) {
		t.Fatalf("skus %v", a.SKUs)
	}
	wantIntakeError(t, deliver(t, srv, rpKeyA, body), 422, "unknown_skus") // the storefront retries
	if got := storedBody(t, "org_e2e_rp_a", id); !bytes.Equal(got, body) {
		t.Fatalf("kept body differs from the bytes sent:\n got %q\nwant %q", got, body)
	}
	rec := receiptAs(t, srv, rpTokA, sid)
	if rec["status"] != "failed" || rec["payloadKept"] != true || rec["payloadBytes"] != float64(len(body)) || rec["attempts"] != float64(2) {
		t.Fatalf("receipt %v, want failed, kept, %d bytes, 2 attempts", rec, len(body))
	}
	found := false
	for _, r := range listReceipts(t, srv, rpTokA, "status=failed&error=unknown_skus") {
		if r["orderId"] == sid {
			found = reflect.DeepEqual(r, rec)
		}
	}
	if !found {
		t.Fatalf("the failed order is not in the list as its receipt shows it")
	}
	if strings.Contains(string(do(t, "GET", srv.URL+"/v0/storefront/orders?status=failed", nil, "Authorization", "Bearer "+rpTokA).Body), "Zoë") {
		t.Fatal("the list shows the kept body")
	}

	// Replayed before the fix: refused again, as the intake answers, and
	// counted; the replay's trace becomes the receipt's.
	r := replayOrder(t, srv, rpTokA, sid)
	wantIntakeError(t, r, 422, "unknown_skus")
	rec = receiptAs(t, srv, rpTokA, sid)
	if rec["attempts"] != float64(3) || rec["traceId"] != r.Header.Get("X-Trace-Id") || rec["payloadBytes"] != float64(len(body)) {
		t.Fatalf("receipt after a refused replay %v, want 3 attempts and trace %s", rec, r.Header.Get("X-Trace-Id"))
	}

	// Fixed, replayed: one shipment, the mapping of the kept bytes.
	addProduct(t, "org_e2e_rp_a", "RP-NEW-1")
	r = replayOrder(t, srv, rpTokA, sid)
	shipment := wantShipment(t, r)
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	var s map[string]any
	getJSON(t, srv, "/v0/shipments/"+shipment, rpTokA, &s)
	for k, v := range map[string]any{
		"status": "pending", "test": true,
		"shippingName": "Zoë Müller", "shippingCompany": "", "shippingAddress1": "Straße des 17. Juni 135",
		"shippingAddress2": "", "shippingCity": "Berlin", "shippingState": "", "shippingZip": "10623",
		"shippingCountry": "DE", "shippingPhone": "", "notes": "Bitte klingeln 🔔 — 山田さん é",
		"source": map[string]any{"type": "storefront", "orderId": sid, "orderNumber": "9007199254740993"},
	} {
		if !reflect.DeepEqual(s[k], v) {
			t.Errorf("%s = %#v, want %#v", k, s[k], v)
		}
	}
	items := map[string]float64{}
	for _, it := range s["items"].([]any) {
		m := it.(map[string]any)
		items[m["sku"].(string)] = m["quantity"].(float64)
	}
	if !reflect.DeepEqual(items, map[string]float64{"RP-SOCK": 5, "RP-NEW-1": 1}) {
		t.Errorf("items %v, want RP-SOCK ×5 (two lines merged) and RP-NEW-1 ×1", items)
	}
	rec = receiptAs(t, srv, rpTokA, sid)
	if rec["status"] != "succeeded" || rec["shipmentId"] != shipment || rec["payloadKept"] != false || rec["payloadBytes"] != nil ||
		rec["traceId"] != r.Header.Get("X-Trace-Id") || rec["lastError"] != "unknown_skus" || rec["attempts"] != float64(4) {
		t.Fatalf("receipt after the replay %v", rec)
	}
	if got := storedBody(t, "org_e2e_rp_a", id); got != nil {
		t.Fatalf("the body is still kept after the success: %d bytes", len(got))
	}

	// Done: a replay and a redelivery answer duplicate, nothing more.
	r = replayOrder(t, srv, rpTokA, sid)
	if a := intakeJSON(t, r); r.Status != 200 || !a.Duplicate || a.ShipmentID == nil || *a.ShipmentID != shipment {
		t.Fatalf("replay of a done order: %d %s", r.Status, r.Body)
	}
	if a := intakeJSON(t, deliver(t, srv, rpKeyA, body)); !a.Duplicate || *a.ShipmentID != shipment {
		t.Fatalf("redelivery after the replay: %+v", a)
	}
	if n := shipmentsOf(t, "org_e2e_rp_a", id); n != 1 {
		t.Fatalf("%d shipments of the order, want 1", n)
	}
}

func shipmentsOf(t *testing.T, org string, orderID int64) int {
	t.Helper()
	db := pgtest.Open(t, testDSN)
	var n int
	if err := db.NewRaw("SELECT count(*) FROM shipments WHERE organization_id = ? AND source_order_id = ?", org, orderID).
		Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Bad input gets the documented answers and changes nothing; another
// organization's orders are invisible.
func TestReplayBadInputAndIsolation(t *testing.T) {
	replaySetup(t)
	srv := startServer(t, baseEnv(testDSN))
	const id = 8_100_001
	wantIntakeError(t, deliver(t, srv, rpKeyA, rpOrder(id, "RP-NEW-BAD")), 422, "unknown_skus")
	before := receiptAs(t, srv, rpTokA, fmt.Sprint(id))

	for _, path := range []string{"0", "-1", "0042", "+8100001", "9223372036854775808", "abc", "8100001.0", "%20OR%201=1", "999999"} {
		wantProblem(t, replayOrder(t, srv, rpTokA, path), 404, "not_found")
	}
	// Another organization: its token sees nothing of org a's orders.
	wantProblem(t, replayOrder(t, srv, rpTokB, fmt.Sprint(id)), 404, "not_found")
	wantProblem(t, getJSON(t, srv, fmt.Sprintf("/v0/storefront/orders/%d", id), rpTokB, nil), 404, "not_found")
	for _, r := range listReceipts(t, srv, rpTokB, "") {
		if r["orderId"] == fmt.Sprint(id) {
			t.Fatal("org b lists org a's order")
		}
	}
	// The same order ID in org b is org b's own order.
	wantIntakeError(t, deliver(t, srv, rpKeyB, rpOrder(id, "RP-NEW-BAD")), 422, "unknown_skus")
	if rec := receiptAs(t, srv, rpTokB, fmt.Sprint(id)); rec["attempts"] != float64(1) {
		t.Fatalf("org b's receipt %v", rec)
	}

	// Credentials before parameters; scopes; methods.
	r := do(t, "POST", srv.URL+fmt.Sprintf("/v0/storefront/orders/%d/replay", id), nil)
	wantProblem(t, r, 401, "invalid_token")
	wantProblem(t, do(t, "GET", srv.URL+"/v0/storefront/orders?take=11", nil), 401, "invalid_token")
	wantProblem(t, replayOrder(t, srv, rpTokI, fmt.Sprint(id)), 403, "insufficient_scope")
	wantProblem(t, getJSON(t, srv, "/v0/storefront/orders", rpTokI, nil), 403, "insufficient_scope")
	r = do(t, "GET", srv.URL+fmt.Sprintf("/v0/storefront/orders/%d/replay", id), nil, "Authorization", "Bearer "+rpTokA)
	wantProblem(t, r, 405, "method_not_allowed")
	r = do(t, "PUT", srv.URL+"/v0/storefront/orders", nil, "Authorization", "Bearer "+rpTokA)
	if wantProblem(t, r, 405, "method_not_allowed"); r.Header.Get("Allow") != "GET, POST" {
		t.Errorf("Allow %q, want GET, POST", r.Header.Get("Allow"))
	}

	for query, param := range map[string]string{
		"status=processing": "status", "status=": "status", "status=FAILED": "status",
		"error=nope": "error", "error=invalid_api_key": "error", "error=": "error", "error=payload_not_kept": "error",
		"take=11": "take", "take=0": "take", "skip=-1": "skip", "take=abc": "take",
	} {
		r := getJSON(t, srv, "/v0/storefront/orders?"+query, rpTokA, nil)
		if p := wantProblem(t, r, 400, "invalid_parameter"); p.Parameter != param {
			t.Errorf("?%s: parameter %q, want %q", query, p.Parameter, param)
		}
	}
	if after := receiptAs(t, srv, rpTokA, fmt.Sprint(id)); !reflect.DeepEqual(after, before) {
		t.Fatalf("the receipt changed:\n%v\nwas\n%v", after, before)
	}
}

// Paging follows every list's rules: Link to the next page, no overlap.
func TestReceiptListPages(t *testing.T) {
	replaySetup(t)
	srv := startServer(t, baseEnv(testDSN))
	for i := range 12 {
		wantIntakeError(t, deliver(t, srv, rpKeyNoWH, rpOrder(int64(8_200_000+i), "RP-SOCK")), 422, "no_warehouse")
	}
	tok := mintToken(t, "org_e2e_rp_nowh", "shipments")
	var seen []string
	path := "/v0/storefront/orders?status=failed&error=no_warehouse&take=5"
	for path != "" {
		var page []map[string]any
		r := getJSON(t, srv, path, tok, &page)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		for _, rec := range page {
			seen = append(seen, rec["orderId"].(string))
		}
		path = ""
		if m := regexp.MustCompile(`^<([^>]+)>; rel="next"$`).FindStringSubmatch(r.Header.Get("Link")); m != nil {
			path = m[1]
		}
	}
	var want []string
	for i := 11; i >= 0; i-- {
		want = append(want, fmt.Sprint(8_200_000+i))
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("pages gave %v, want the latest delivery first %v", seen, want)
	}
}

// Many replays and storefront redeliveries of the same orders, at once, to
// three replicas: one shipment per order, every answer agrees.
func TestReplayRacesRedeliveriesOnThreeReplicas(t *testing.T) {
	replaySetup(t)
	replicas := []*server{startServer(t, baseEnv(testDSN)), startServer(t, baseEnv(testDSN)), startServer(t, baseEnv(testDSN))}
	const orders, each = 15, 8 // each: replays and as many redeliveries per order
	bodies := make([][]byte, orders)
	for i := range orders {
		bodies[i] = rpOrder(int64(8_300_000+i), "RP-NEW-RACE")
		wantIntakeError(t, deliver(t, replicas[i%3], rpKeyA, bodies[i]), 422, "unknown_skus")
	}
	addProduct(t, "org_e2e_rp_a", "RP-NEW-RACE")
	type answer struct {
		shipment  string
		duplicate bool
	}
	answers := make([][]answer, orders)
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for i := range orders {
		for j := range 2 * each {
			wg.Go(func() {
				srv := replicas[(i+j)%3]
				var r response
				for range 100 { // 503 (shed) is retried, as a storefront or an operator would
					if j%2 == 0 {
						r = replayOrder(t, srv, rpTokA, fmt.Sprint(8_300_000+i))
					} else {
						r = deliver(t, srv, rpKeyA, bodies[i])
					}
					if r.Status != 503 {
						break
					}
					time.Sleep(time.Duration(20+rand.IntN(80)) * time.Millisecond)
				}
				if r.Status != 200 {
					t.Errorf("order %d, %d: %d %s", i, j, r.Status, r.Body)
					return
				}
				a := intakeJSON(t, r)
				mu.Lock()
				answers[i] = append(answers[i], answer{*a.ShipmentID, a.Duplicate})
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i, as := range answers {
		fresh := 0
		for _, a := range as {
			if a.shipment != as[0].shipment {
				t.Fatalf("order %d: answers name different shipments: %v", i, as)
			}
			if !a.duplicate {
				fresh++
			}
		}
		if n := shipmentsOf(t, "org_e2e_rp_a", int64(8_300_000+i)); n != 1 || fresh != 1 {
			t.Errorf("order %d: %d shipments, %d answers without duplicate; want 1 and 1", i, n, fresh)
		}
	}
}

// Bodies older than FAILED_ORDER_RETENTION are purged by the server on its
// own, and by `fulfillment orders purge`; the receipt stays, and a replay
// says the body is gone.
func TestFailedOrderRetention(t *testing.T) {
	replaySetup(t)
	srv := startServer(t, baseEnv(testDSN, "FAILED_ORDER_RETENTION=2s"))
	wantIntakeError(t, deliver(t, srv, rpKeyA, rpOrder(8_400_001, "RP-NEW-RET")), 422, "unknown_skus")
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
	wantProblem(t, replayOrder(t, srv, rpTokA, "8400001"), 409, "payload_not_kept")
	if after := receiptAs(t, srv, rpTokA, "8400001"); !reflect.DeepEqual(after, rec) {
		t.Fatalf("a replay without a body changed the receipt: %v, was %v", after, rec)
	}
	srv.Stop(t)

	// The command, with the default retention a fresh body stays; with a
	// second, it goes.
	srv = startServer(t, baseEnv(testDSN))
	wantIntakeError(t, deliver(t, srv, rpKeyA, rpOrder(8_400_002, "RP-NEW-RET2")), 422, "unknown_skus")
	out := mustCLI(t, baseEnv(testDSN), "orders", "purge")
	if !regexp.MustCompile(`^purged \d+ kept bodies of failed orders whose last delivery is older than 720h0m0s\n$`).MatchString(out) {
		t.Fatalf("orders purge printed %q", out)
	}
	if receiptAs(t, srv, rpTokA, "8400002")["payloadKept"] != true {
		t.Fatal("a fresh body was purged")
	}
	time.Sleep(1100 * time.Millisecond)
	out = mustCLI(t, baseEnv(testDSN, "FAILED_ORDER_RETENTION=1s"), "orders", "purge")
	if m := regexp.MustCompile(`^purged (\d+) kept bodies`).FindStringSubmatch(out); m == nil || m[1] == "0" {
		t.Fatalf("orders purge printed %q, want at least one purged", out)
	}
	if receiptAs(t, srv, rpTokA, "8400002")["payloadKept"] != false {
		t.Fatal("orders purge left a body past retention")
	}
	if r := runCLI(t, baseEnv(testDSN, "FAILED_ORDER_RETENTION=soon"), "orders", "purge"); r.Code != 1 ||
		!strings.Contains(r.Stderr, "FAILED_ORDER_RETENTION") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("a bad FAILED_ORDER_RETENTION: exit %d %q", r.Code, r.Stderr)
	}
}

// `fulfillment orders`: its lines, its summary and its exit statuses.
func TestOrdersCommand(t *testing.T) {
	replaySetup(t)
	srv := startServer(t, baseEnv(testDSN))
	env := baseEnv(testDSN)
	// Two orders wait for a product, one can never ship (no address).
	wantIntakeError(t, deliver(t, srv, rpKeyCLI, rpOrder(8_500_001, "RP-CLI")), 422, "unknown_skus")
	wantIntakeError(t, deliver(t, srv, rpKeyCLI, rpOrder(8_500_002, "RP-CLI")), 422, "unknown_skus")
	noAddress := bytes.Replace(rpOrder(8_500_003, "RP-SOCK"), []byte(`"shipping_address"`), []byte(`"billing_address"`), 1)
	wantIntakeError(t, deliver(t, srv, rpKeyCLI, noAddress), 422, "missing_shipping_address")

	line := regexp.MustCompile(`^(\d+) (failed|succeeded) error=(\S+) shipment=(\S+) attempts=(\d+) payloadBytes=(\S+) lastReceivedAt=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	out := mustCLI(t, env, "orders", "list", "--org", "org_e2e_rp_cli", "--status", "failed")
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
	if out := mustCLI(t, env, "orders", "list", "--org", "org_e2e_rp_cli", "--error", "missing_shipping_address"); !strings.HasPrefix(out, "8500003 failed error=missing_shipping_address ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("orders list --error printed %q", out)
	}

	addProduct(t, "org_e2e_rp_cli", "RP-CLI")
	r := runCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_cli", "--all-failed")
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
	r = runCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_cli", "--all-failed")
	if r.Code != 1 || r.Stdout != "8500003 failed missing_shipping_address\nreplayed 1: 0 succeeded, 0 duplicate, 1 failed\n" {
		t.Fatalf("second replay --all-failed: exit %d %q", r.Code, r.Stdout)
	}
	r = runCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_cli", "--order", "8500001")
	if r.Code != 0 || r.Stdout != "8500001 duplicate "+shipment+"\nreplayed 1: 0 succeeded, 1 duplicate, 0 failed\n" || r.Stderr != "" {
		t.Fatalf("replay of a done order: exit %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	r = runCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_b", "--order", "8500001")
	if r.Code != 1 || r.Stdout != "8500001 failed not_found\nreplayed 1: 0 succeeded, 0 duplicate, 1 failed\n" {
		t.Fatalf("replay of another organization's order: exit %d %q", r.Code, r.Stdout)
	}
	if n := shipmentsOf(t, "org_e2e_rp_cli", 8_500_001); n != 1 {
		t.Fatalf("%d shipments of 8500001", n)
	}
	if out := mustCLI(t, env, "orders", "replay", "--org", "org_e2e_rp_nobody", "--all-failed"); out != "replayed 0: 0 succeeded, 0 duplicate, 0 failed\n" {
		t.Fatalf("nothing to replay: %q", out)
	}

	for _, args := range [][]string{
		{"orders"}, {"orders", "nope"}, {"orders", "list"}, {"orders", "list", "--org", "o", "--status", "processing"},
		{"orders", "list", "--org", "o", "--error", "nope"}, {"orders", "replay", "--org", "o"},
		{"orders", "replay", "--all-failed"}, {"orders", "replay", "--org", "o", "--order", "1", "--all-failed"},
		{"orders", "replay", "--org", "o", "--order", "abc"}, {"orders", "replay", "--org", "o", "--order", "-5"},
		{"orders", "replay", "--org", "o", "--all-failed", "--workers", "0"}, {"orders", "purge", "now"},
	} {
		if r := runCLI(t, env, args...); r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "fulfillment: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and a usage line", args, r.Code, r.Stdout, r.Stderr)
		}
	}
}

// `orders replay --all-failed` stops cleanly on SIGINT: what was replayed
// stays replayed, nothing is half done, and running it again finishes.
func TestOrdersReplayInterrupted(t *testing.T) {
	replaySetup(t)
	srv := startServer(t, baseEnv(testDSN))
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

	cmd := exec.Command(binPath, "orders", "replay", "--org", org, "--all-failed", "--workers", "2")
	cmd.Env = baseEnv(testDSN)
	var stdout, stderr syncBuffer
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
	db := pgtest.Open(t, testDSN)
	var bad int
	err = db.NewRaw(`SELECT count(*) FROM order_receipts r
		LEFT JOIN shipments s ON s.organization_id = r.organization_id AND s.source_order_id = r.order_id
		WHERE r.organization_id = ? AND r.order_id BETWEEN 8600000 AND 8600399
		AND NOT ((r.status = 'succeeded' AND r.payload IS NULL AND s.id = r.shipment_id)
		      OR (r.status = 'failed' AND r.payload IS NOT NULL AND s.id IS NULL))`, org).Scan(context.Background(), &bad)
	if err != nil || bad != 0 {
		t.Fatalf("%d orders half done (%v)", bad, err)
	}
	r := runCLI(t, baseEnv(testDSN), "orders", "replay", "--org", org, "--all-failed")
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
	srv := startServer(t, baseEnv(testDSN))
	wantIntakeError(t, deliver(t, srv, rpKeyNoWH, rpOrder(8_700_001, "RP-SOCK")), 422, "no_warehouse")
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
	srv := startServer(t, baseEnv(testDSN, "OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+j.OTLP,
		"OTEL_SERVICE_NAME=fulfillment-e2e-replay", "OTEL_BSP_SCHEDULE_DELAY=100"))
	failed := deliver(t, srv, rpKeyA, rpOrder(8_800_001, "RP-NEW-TRACE"))
	wantIntakeError(t, failed, 422, "unknown_skus")
	addProduct(t, "org_e2e_rp_a", "RP-NEW-TRACE")
	r := replayOrder(t, srv, rpTokA, "8800001")
	shipment := wantShipment(t, r)
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
	srv := startServer(t, baseEnv(testDSN))
	const id = int64(9007199254741013)
	body := bytes.Replace(rpOrder(id, "RP-SOCK"), []byte(`"sku": "RP-SOCK",`), []byte("\"sku\": \"RP-SOCK\xff\","), 1)
	const message = "line_items[0].sku: must be valid UTF-8"
	if a := wantIntakeError(t, deliver(t, srv, rpKeyA, body), 400, "invalid_payload"); a.Message != message {
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
