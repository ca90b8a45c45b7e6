package pagetests

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain/audit"
)

// The failed orders page lists an organization's failed orders with their
// reason; an order's page shows its body masked; a replay after the cause
// was fixed makes its shipment, and the same replay again is unchanged.
func TestFailedOrdersReplay(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_ops"
	if err := w.deliver(t, org, orderBody(7001, "PG-NEW-1")); err == nil {
		t.Fatal("an order of an unknown SKU was taken")
	}
	a := w.get(t, "viewer", "/failed-orders?org="+org)
	want(t, a, 200, "<h1>Failed orders of", "7001", "unknown_skus", `id="replay-7001"`, `id="replay-all"`)

	a = w.get(t, "viewer", "/failed-orders?org="+org+"&order=7001")
	want(t, a, 200, "Storefront order 7001", `id="order-body"`, "PG-NEW-1", "•••",
		`id="order-reason">A line&#39;s SKU is not a product of the organization`)
	wantNot(t, a, "ann.example@example.org", "Hidden Lane", "Ann Example", "555-0111", "08608")

	// Still failing: 422 with its code, nothing changed.
	a = w.post(t, "ops", "/failed-orders/replay", url.Values{"org": {org}, "orderId": {"7001"}})
	want(t, a, 422, "unknown_skus", `id="error"`)

	w.addProduct(t, org, "prod_pg_new1", "PG-NEW-1")
	a = w.post(t, "ops", "/failed-orders/replay", url.Values{"org": {org}, "orderId": {"7001"}})
	want(t, a, 200, `id="replay-shipment-id"`, "Done.")
	shipment := regexp.MustCompile(`id="replay-shipment-id"><a href="[^"]*">([^<]+)</a>`).FindStringSubmatch(a.body)
	if shipment == nil {
		t.Fatalf("no shipment ID on the page:\n%s", a.body)
	}
	a = w.post(t, "ops", "/failed-orders/replay", url.Values{"org": {org}, "orderId": {"7001"}})
	want(t, a, 200, "Unchanged.", shipment[1])

	recs := w.auditRecords(t, org)
	var outcomes []string
	for _, r := range recs {
		if r.Action == audit.OrdersReplay && strings.Contains(strings.ReplaceAll(string(r.Input), " ", ""), `"orderId":7001`) {
			outcomes = append(outcomes, string(r.Outcome))
			if r.Actor.Subject != "clerk-ops" {
				t.Errorf("actor %v, want the console's principal", r.Actor)
			}
		}
	}
	if strings.Join(outcomes, ",") != "unknown_skus,done,unchanged" {
		t.Errorf("audit outcomes %v, want unknown_skus, done, unchanged", outcomes)
	}
}

// Refusals: a viewer may not replay (403, nothing done, nothing recorded);
// a malformed order ID is 400; an unknown order 404; an unknown
// organization 404.
func TestFailedOrdersRefusals(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_ops"
	if err := w.deliver(t, org, orderBody(7101, "PG-NEW-2")); err == nil {
		t.Fatal("taken")
	}
	w.addProduct(t, org, "prod_pg_new2", "PG-NEW-2")
	before := len(w.auditRecords(t, org))
	a := w.post(t, "viewer", "/failed-orders/replay", url.Values{"org": {org}, "orderId": {"7101"}})
	want(t, a, 403)
	a = w.post(t, "viewer", "/failed-orders/replay-all", url.Values{"org": {org}})
	want(t, a, 403)
	if got := len(w.auditRecords(t, org)); got != before {
		t.Errorf("%d audit records after the refusals, want %d", got, before)
	}
	a = w.get(t, "viewer", "/failed-orders?org="+org+"&order=7101")
	want(t, a, 200, `<dd id="order-status">failed</dd>`)

	want(t, w.post(t, "ops", "/failed-orders/replay", url.Values{"org": {org}, "orderId": {"x1"}}), 400, "orderId")
	want(t, w.post(t, "ops", "/failed-orders/replay", url.Values{"org": {org}, "orderId": {"999999"}}), 404, "not_found")
	want(t, w.post(t, "ops", "/failed-orders/replay", url.Values{"org": {"org_nope"}, "orderId": {"7101"}}), 404)
	want(t, w.post(t, "ops", "/failed-orders/replay-all", url.Values{"org": {org}, "code": {"bogus"}}), 400)
	want(t, w.get(t, "viewer", "/failed-orders?org=org_nope"), 404)
	want(t, w.get(t, "viewer", "/failed-orders?org="+org+"&code=bogus"), 400)
	want(t, w.get(t, "", "/failed-orders"), 303)
	// No organization: the picker.
	want(t, w.get(t, "viewer", "/failed-orders"), 200, "Choose an organization", "org_pg_ops")
}

// Replay all streams a line per order and ends with the CLI's summary.
func TestFailedOrdersReplayAll(t *testing.T) {
	w := newWorld(t)
	const org = "org_pg_ops"
	for _, id := range []int64{7201, 7202, 7203} {
		if err := w.deliver(t, org, orderBody(id, "PG-NEW-3")); err == nil {
			t.Fatal("taken")
		}
	}
	w.addProduct(t, org, "prod_pg_new3", "PG-NEW-3")
	a := w.post(t, "ops", "/failed-orders/replay-all", url.Values{"org": {org}, "code": {"unknown_skus"}})
	want(t, a, 200, "<li>7201 succeeded ", "<li>7202 succeeded ", "<li>7203 succeeded ", `id="replay-summary"`)
	summary := regexp.MustCompile(`id="replay-summary">(replayed \d+: \d+ succeeded, \d+ duplicate, \d+ failed)</p>`).FindStringSubmatch(a.body)
	if summary == nil {
		t.Fatalf("no summary line:\n%s", a.body)
	}
	if !strings.HasSuffix(strings.TrimSpace(a.body), "</html>") {
		t.Errorf("the streamed page does not end as a page:\n%s", a.body)
	}
	a = w.post(t, "ops", "/failed-orders/replay-all", url.Values{"org": {org}, "code": {"unknown_skus"}})
	want(t, a, 200, `id="replay-summary">replayed `)
	wantNot(t, a, "<li>7201 ")
}
