package main

// End-to-end tests of failed orders (docs/storefront-intake.md, "When an
// order fails"): the body of a refused delivery is kept byte for byte, an
// operator lists the failed orders and replays them once the data is fixed
// — over HTTP and with `fulfillment orders` — exactly once against
// storefront redeliveries and replicas, and the bodies are purged after
// FAILED_ORDER_RETENTION.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

const (
	rpKeyA    = "fk_test_E2EreplayAaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	rpKeyB    = "fk_test_E2EreplayBbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	rpKeyCLI  = "fk_test_E2EreplayCLIcccccccccccccccccccccccccccc"
	rpKeyNoWH = "fk_test_E2EreplayNoWarehouseeeeeeeeeeeeeeeeeeee"
	rpKeyInt  = "fk_test_E2EreplayInterruptediiiiiiiiiiiiiiiiiii"
	rpKeyPage = "fk_test_E2EreplayPagesppppppppppppppppppppppppp"
)

// replayFixture: org_e2e_rp_a and org_e2e_rp_b each have a warehouse and
// the product RP-SOCK; org_e2e_rp_cli is the CLI's (RP-SOCK too);
// org_e2e_rp_nowh has no warehouse; org_e2e_rp_int is the interrupted
// replay's alone, so that no other test's failed order is in its way, and
// org_e2e_rp_pages (no warehouse either) the paging test's alone, so that
// its list holds only that test's failed orders.
func replayFixture() map[string]any {
	orgs := []string{"org_e2e_rp_a", "org_e2e_rp_b", "org_e2e_rp_cli", "org_e2e_rp_nowh", "org_e2e_rp_int", "org_e2e_rp_pages"}
	var organizations, warehouses, products, keys []any
	for i, org := range orgs {
		organizations = append(organizations, map[string]any{"id": org, "name": org})
		if org != "org_e2e_rp_nowh" && org != "org_e2e_rp_pages" {
			warehouses = append(warehouses, e2e.FixtureWarehouse("wh_"+org[4:], "DC "+org, true, org))
		}
		products = append(products, map[string]any{"id": fmt.Sprintf("prod_e2e_rp_%d", i), "organizationId": org, "sku": "RP-SOCK", "name": "Socks"})
	}
	for _, k := range [][2]string{{"org_e2e_rp_a", rpKeyA}, {"org_e2e_rp_b", rpKeyB}, {"org_e2e_rp_cli", rpKeyCLI}, {"org_e2e_rp_nowh", rpKeyNoWH}, {"org_e2e_rp_int", rpKeyInt}, {"org_e2e_rp_pages", rpKeyPage}} {
		keys = append(keys, map[string]any{"id": "key_" + k[0][4:], "organizationId": k[0], "key": k[1],
			"scopes": []string{"shipments", "inventory"}, "revoked": false})
	}
	return map[string]any{"organizations": organizations, "warehouses": warehouses, "products": products, "apiKeys": keys}
}

var (
	rpTokA, rpTokB, rpTokI string // shipments of org a, of org b; inventory only of org a
	replaySetup            = e2e.SeedOnce("replay", func(t *testing.T) {
		e2e.SeedFixture(t, e2e.TestDSN, replayFixture())
		rpTokA = e2e.MintToken(t, "org_e2e_rp_a", "shipments")
		rpTokB = e2e.MintToken(t, "org_e2e_rp_b", "shipments")
		rpTokI = e2e.MintToken(t, "org_e2e_rp_a", "inventory")
	})
)

// addProduct makes sku a product of org: the operator's fix.
func addProduct(t *testing.T, org, sku string) {
	t.Helper()
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{"products": []any{map[string]any{
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

func replayOrder(t *testing.T, srv *e2e.Server, token string, orderID string) e2e.Response {
	t.Helper()
	return e2e.Do(t, "POST", srv.URL+"/v0/storefront/orders/"+orderID+"/replay", nil, "Authorization", "Bearer "+token)
}

// receiptAs reads an order receipt with token; status 200 or the test fails.
func receiptAs(t *testing.T, srv *e2e.Server, token, orderID string) map[string]any {
	t.Helper()
	var m map[string]any
	if r := e2e.GetJSON(t, srv, "/v0/storefront/orders/"+orderID, token, &m); r.Status != 200 {
		t.Fatalf("receipt of %s: %d %s", orderID, r.Status, r.Body)
	}
	return m
}

// listReceipts reads a list of receipts with token; status 200 or the test
// fails.
func listReceipts(t *testing.T, srv *e2e.Server, token, query string) []map[string]any {
	t.Helper()
	var out []map[string]any
	if r := e2e.GetJSON(t, srv, "/v0/storefront/orders?"+query, token, &out); r.Status != 200 {
		t.Fatalf("list ?%s: %d %s", query, r.Status, r.Body)
	}
	return out
}

// storedBody reads the body kept with an order's receipt from the database.
func storedBody(t *testing.T, org string, orderID int64) []byte {
	t.Helper()
	return e2e.QueryValue[[]byte](t, "SELECT payload FROM order_receipts WHERE organization_id = ? AND order_id = ?", org, orderID)
}

func TestReplayAfterTheDataIsFixed(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	const id = int64(9007199254740993) // above 2^53
	sid := fmt.Sprint(id)
	body := rpOrder(id, "RP-NEW-1")

	// Refused: the body is kept as sent, its size on the receipt and in the list.
	a := wantIntakeError(t, e2e.Deliver(t, srv, rpKeyA, body), 422, "unknown_skus")
	if !reflect.DeepEqual(a.SKUs, []string{"RP-NEW-1"}) {
		t.Fatalf("skus %v", a.SKUs)
	}
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyA, body), 422, "unknown_skus") // the storefront retries
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
	if strings.Contains(string(e2e.Do(t, "GET", srv.URL+"/v0/storefront/orders?status=failed", nil, "Authorization", "Bearer "+rpTokA).Body), "Zoë") {
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
	shipment := e2e.WantShipment(t, r)
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	var s map[string]any
	e2e.GetJSON(t, srv, "/v0/shipments/"+shipment, rpTokA, &s)
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
	if a := e2e.IntakeJSON(t, r); r.Status != 200 || !a.Duplicate || a.ShipmentID == nil || *a.ShipmentID != shipment {
		t.Fatalf("replay of a done order: %d %s", r.Status, r.Body)
	}
	if a := e2e.IntakeJSON(t, e2e.Deliver(t, srv, rpKeyA, body)); !a.Duplicate || *a.ShipmentID != shipment {
		t.Fatalf("redelivery after the replay: %+v", a)
	}
	if n := shipmentsOf(t, "org_e2e_rp_a", id); n != 1 {
		t.Fatalf("%d shipments of the order, want 1", n)
	}
}

func shipmentsOf(t *testing.T, org string, orderID int64) int {
	t.Helper()
	return e2e.QueryValue[int](t, "SELECT count(*) FROM shipments WHERE organization_id = ? AND source_order_id = ?", org, orderID)
}

// Bad input gets the documented answers and changes nothing; another
// organization's orders are invisible.
func TestReplayBadInputAndIsolation(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	const id = 8_100_001
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyA, rpOrder(id, "RP-NEW-BAD")), 422, "unknown_skus")
	before := receiptAs(t, srv, rpTokA, fmt.Sprint(id))

	for _, path := range []string{"0", "-1", "0042", "+8100001", "9223372036854775808", "abc", "8100001.0", "%20OR%201=1", "999999"} {
		e2e.WantProblem(t, replayOrder(t, srv, rpTokA, path), 404, "not_found")
	}
	// Another organization: its token sees nothing of org a's orders.
	e2e.WantProblem(t, replayOrder(t, srv, rpTokB, fmt.Sprint(id)), 404, "not_found")
	e2e.WantProblem(t, e2e.GetJSON(t, srv, fmt.Sprintf("/v0/storefront/orders/%d", id), rpTokB, nil), 404, "not_found")
	for _, r := range listReceipts(t, srv, rpTokB, "") {
		if r["orderId"] == fmt.Sprint(id) {
			t.Fatal("org b lists org a's order")
		}
	}
	// The same order ID in org b is org b's own order.
	wantIntakeError(t, e2e.Deliver(t, srv, rpKeyB, rpOrder(id, "RP-NEW-BAD")), 422, "unknown_skus")
	if rec := receiptAs(t, srv, rpTokB, fmt.Sprint(id)); rec["attempts"] != float64(1) {
		t.Fatalf("org b's receipt %v", rec)
	}

	// Credentials before parameters; scopes; methods.
	r := e2e.Do(t, "POST", srv.URL+fmt.Sprintf("/v0/storefront/orders/%d/replay", id), nil)
	e2e.WantProblem(t, r, 401, "invalid_token")
	e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/storefront/orders?take=11", nil), 401, "invalid_token")
	e2e.WantProblem(t, replayOrder(t, srv, rpTokI, fmt.Sprint(id)), 403, "insufficient_scope")
	e2e.WantProblem(t, e2e.GetJSON(t, srv, "/v0/storefront/orders", rpTokI, nil), 403, "insufficient_scope")
	r = e2e.Do(t, "GET", srv.URL+fmt.Sprintf("/v0/storefront/orders/%d/replay", id), nil, "Authorization", "Bearer "+rpTokA)
	e2e.WantProblem(t, r, 405, "method_not_allowed")
	r = e2e.Do(t, "PUT", srv.URL+"/v0/storefront/orders", nil, "Authorization", "Bearer "+rpTokA)
	if e2e.WantProblem(t, r, 405, "method_not_allowed"); r.Header.Get("Allow") != "GET, POST" {
		t.Errorf("Allow %q, want GET, POST", r.Header.Get("Allow"))
	}

	for query, param := range map[string]string{
		"status=processing": "status", "status=": "status", "status=FAILED": "status",
		"error=nope": "error", "error=invalid_api_key": "error", "error=": "error", "error=payload_not_kept": "error",
		"take=11": "take", "take=0": "take", "skip=-1": "skip", "take=abc": "take",
	} {
		r := e2e.GetJSON(t, srv, "/v0/storefront/orders?"+query, rpTokA, nil)
		if p := e2e.WantProblem(t, r, 400, "invalid_parameter"); p.Parameter != param {
			t.Errorf("?%s: parameter %q, want %q", query, p.Parameter, param)
		}
	}
	if after := receiptAs(t, srv, rpTokA, fmt.Sprint(id)); !reflect.DeepEqual(after, before) {
		t.Fatalf("the receipt changed:\n%v\nwas\n%v", after, before)
	}
}

// Paging follows every list's rules: Link to the next page, no overlap.
// The organization is this test's alone: its list is the 12 orders here.
func TestReceiptListPages(t *testing.T) {
	replaySetup(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	for i := range 12 {
		wantIntakeError(t, e2e.Deliver(t, srv, rpKeyPage, rpOrder(int64(8_200_000+i), "RP-SOCK")), 422, "no_warehouse")
	}
	tok := e2e.MintToken(t, "org_e2e_rp_pages", "shipments")
	var seen []string
	path := "/v0/storefront/orders?status=failed&error=no_warehouse&take=5"
	for path != "" {
		var page []map[string]any
		r := e2e.GetJSON(t, srv, path, tok, &page)
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
	replicas := []*e2e.Server{e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)), e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)), e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))}
	const orders, each = 15, 8 // each: replays and as many redeliveries per order
	bodies := make([][]byte, orders)
	for i := range orders {
		bodies[i] = rpOrder(int64(8_300_000+i), "RP-NEW-RACE")
		wantIntakeError(t, e2e.Deliver(t, replicas[i%3], rpKeyA, bodies[i]), 422, "unknown_skus")
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
				var r e2e.Response
				for range 100 { // 503 (shed) is retried, as a storefront or an operator would
					if j%2 == 0 {
						r = replayOrder(t, srv, rpTokA, fmt.Sprint(8_300_000+i))
					} else {
						r = e2e.Deliver(t, srv, rpKeyA, bodies[i])
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
				a := e2e.IntakeJSON(t, r)
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
