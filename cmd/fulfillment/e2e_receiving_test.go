package main

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// recvE2EFixture: wh_e2e_recv_east serves org_e2e_recv_a, which owns
// prod_e2e_recv_1 (none in stock) and ctn_e2e_recv_1 (10 at East, an opening
// balance); wh_e2e_recv_far serves org_e2e_recv_b only, which owns
// prod_e2e_recv_b.
func recvE2EFixture() map[string]any {
	return map[string]any{
		"organizations": []any{
			e2e.FixtureOrg("org_e2e_recv_a", "Receiving A"),
			e2e.FixtureOrg("org_e2e_recv_b", "Receiving B"),
		},
		"warehouses": []any{
			e2e.FixtureWarehouse("wh_e2e_recv_east", "Receiving East", true, "org_e2e_recv_a"),
			e2e.FixtureWarehouse("wh_e2e_recv_far", "Receiving Far", true, "org_e2e_recv_b"),
		},
		"products": []any{e2e.FixtureItem("prod_e2e_recv_1", "org_e2e_recv_a", "R-TEE"), e2e.FixtureItem("prod_e2e_recv_b", "org_e2e_recv_b", "R-B")},
		"cartons":  []any{e2e.FixtureItem("ctn_e2e_recv_1", "org_e2e_recv_a", "R-CTN")},
		"stock":    []any{map[string]any{"warehouseId": "wh_e2e_recv_east", "cartonId": "ctn_e2e_recv_1", "onHand": 10}},
		// A service must be one of the rate card in force (docs/billing.md).
		"rateCards": []any{recvE2ECard("org_e2e_recv_a"), recvE2ECard("org_e2e_recv_b")},
	}
}

// recvE2EAt is a report's time, hours before now: relative to now, so that
// it never lies in a period a billing run (any test's server runs them)
// has finalized: the grace (24 h) outlasts it. Milliseconds, as the API
// answers them.
func recvE2EAt(hours int) string {
	return time.Now().UTC().Add(-time.Duration(hours) * time.Hour).Format("2006-01-02T15:04:05.000Z")
}

// recvE2ECard prices labour from the first day of the month of three hours
// ago, before every report's time (recvE2EAt) and never in a finalized
// period, so that seeding it again is never refused.
func recvE2ECard(org string) map[string]any {
	from := time.Now().UTC().Add(-3*time.Hour).Format("2006-01") + "-01"
	return map[string]any{"organizationId": org, "effectiveFrom": from, "fees": map[string]int64{"receiving_unit": 15},
		"services": map[string]any{"labor_hour": map[string]any{"title": "Labour", "unitCost": 4500}}}
}

// recvOnHand is the organization's on hand of one item at East, as the
// organization's inventory routes show it.
func recvOnHand(t *testing.T, base, path, id string) float64 {
	t.Helper()
	org := shipClient{t: t, base: base, token: e2e.MintToken(t, "org_e2e_recv_a", "inventory")}
	items, _ := org.list(path)
	return shipStockAt(t, items, id)["wh_e2e_recv_east"][0]
}

// THE RACE, end to end: one receipt sent at once, many times, to three
// server instances. Exactly one answer is 201; every other is 200 with the
// same receipt; on hand rose once; the units are counted once across the
// instances. Then the refusals, each writing nothing.
func TestWarehouseReceiptsAPI(t *testing.T) {
	e2e.SeedFixture(t, e2e.TestDSN, recvE2EFixture())
	e2e.SeedFixture(t, e2e.TestDSN, recvE2EFixture()) // a second seed changes nothing: no second opening balance
	servers := []*e2e.Server{
		e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)), e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)), e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN)),
	}
	wms := shipClient{t: t, base: servers[0].URL, token: e2e.MintWarehouseToken(t, "wh_e2e_recv_east")}
	if got := recvOnHand(t, wms.base, "/v0/cartons", "ctn_e2e_recv_1"); got != 10 {
		t.Fatalf("cartons on hand after seeding twice: %v, want 10", got)
	}

	receivedAt := recvE2EAt(2)
	body := map[string]any{
		"organizationId": "org_e2e_recv_a", "reference": "ASN-E2E-RACE", "receivedAt": receivedAt,
		"items": []any{
			map[string]any{"productId": "prod_e2e_recv_1", "quantity": 40},
			map[string]any{"cartonId": "ctn_e2e_recv_1", "quantity": 5},
			map[string]any{"productId": "prod_e2e_recv_1", "quantity": 2},
		},
	}
	const senders = 12
	answers := make([]e2e.Response, senders)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = e2e.Do(t, http.MethodPost, servers[i%len(servers)].URL+"/v0/warehouse/receipts", body,
				"Authorization", "Bearer "+wms.token)
		}()
	}
	close(start)
	wg.Wait()
	created, id := 0, ""
	for i, r := range answers {
		if r.Status != http.StatusCreated && r.Status != http.StatusOK {
			t.Fatalf("sender %d: status %d: %s", i, r.Status, r.Body)
		}
		if r.Status == http.StatusCreated {
			created++
		}
		var rec map[string]any
		r.JSON(t, &rec)
		if id == "" {
			id, _ = rec["id"].(string)
		}
		if rec["id"] != id || rec["warehouseId"] != "wh_e2e_recv_east" || rec["receivedAt"] != receivedAt {
			t.Fatalf("sender %d: receipt %v, want receipt %s", i, rec, id)
		}
		items, _ := rec["items"].([]any)
		if len(items) != 2 || items[0].(map[string]any)["quantity"] != 42.0 || items[0].(map[string]any)["sku"] != "R-TEE" ||
			items[1].(map[string]any)["cartonId"] != "ctn_e2e_recv_1" {
			t.Fatalf("sender %d: items %v, want 42 R-TEE then the cartons", i, items)
		}
	}
	if created != 1 {
		t.Fatalf("%d answers were 201, want exactly 1", created)
	}
	if got := recvOnHand(t, wms.base, "/v0/products", "prod_e2e_recv_1"); got != 42 {
		t.Fatalf("products on hand %v, want 42", got)
	}
	if got := recvOnHand(t, wms.base, "/v0/cartons", "ctn_e2e_recv_1"); got != 15 {
		t.Fatalf("cartons on hand %v, want 15", got)
	}
	var units [2]float64
	for _, s := range servers {
		units[0] += recvMetric(t, s.URL, `fulfillment_warehouse_units_received_total{kind="product"}`)
		units[1] += recvMetric(t, s.URL, `fulfillment_warehouse_units_received_total{kind="carton"}`)
	}
	if units != [2]float64{42, 5} {
		t.Fatalf("units received across the instances %v, want [42 5]", units)
	}

	// Refusals: nothing written, each with its documented problem.
	post := func(b any) e2e.Response {
		return wms.do(http.MethodPost, "/v0/warehouse/receipts", b)
	}
	with := func(edit func(m map[string]any)) map[string]any {
		m := map[string]any{"organizationId": "org_e2e_recv_a", "reference": "ASN-E2E-REFUSED",
			"items": []any{map[string]any{"cartonId": "ctn_e2e_recv_1", "quantity": 1}}}
		edit(m)
		return m
	}
	body["receivedAt"] = recvE2EAt(1) // the same reference at another time: other content
	e2e.WantProblem(t, post(body), http.StatusConflict, "reference_conflict")
	future := time.Now().Add(time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
	if p := e2e.WantProblem(t, post(with(func(m map[string]any) { m["receivedAt"] = future })), 400, "invalid_parameter"); p.Parameter != "receivedAt" {
		t.Fatalf("future receivedAt names %q", p.Parameter)
	}
	if p := e2e.WantProblem(t, post(with(func(m map[string]any) {
		m["items"] = []any{map[string]any{"cartonId": "ctn_e2e_recv_1", "quantity": "1"}}
	})), 400, "invalid_parameter"); p.Parameter != "items[0].quantity" {
		t.Fatalf("a quantity as a string names %q", p.Parameter)
	}
	if p := e2e.WantProblem(t, post(with(func(m map[string]any) { m["reference"] = 7 })), 400, "invalid_parameter"); p.Parameter != "reference" {
		t.Fatalf("a numeric reference names %q", p.Parameter)
	}
	r := post(with(func(m map[string]any) {
		m["items"] = []any{map[string]any{"productId": "prod_e2e_recv_b", "quantity": 1}, map[string]any{"cartonId": "prod_e2e_recv_1", "quantity": 1}}
	}))
	e2e.WantProblem(t, r, 422, "unknown_items")
	if !strings.Contains(string(r.Body), `"ids":["prod_e2e_recv_b","prod_e2e_recv_1"]`) {
		t.Fatalf("unknown items: %s", r.Body)
	}
	e2e.WantProblem(t, post(with(func(m map[string]any) { m["organizationId"] = "org_e2e_recv_b" })), 422, "invalid_warehouse")
	e2e.WantProblem(t, post(with(func(m map[string]any) { m["organizationId"] = "org_e2e_recv_nobody" })), 422, "invalid_warehouse")
	orgToken := shipClient{t: t, base: wms.base, token: e2e.MintToken(t, "org_e2e_recv_a", "inventory", "shipments")}
	e2e.WantProblem(t, orgToken.do(http.MethodPost, "/v0/warehouse/receipts", with(func(map[string]any) {})), 403, "insufficient_scope")
	e2e.WantProblem(t, e2e.Do(t, http.MethodPost, wms.base+"/v0/warehouse/receipts", with(func(map[string]any) {})), 401, "invalid_token")
	if got := recvOnHand(t, wms.base, "/v0/cartons", "ctn_e2e_recv_1"); got != 15 {
		t.Fatalf("cartons on hand after the refusals %v, want 15", got)
	}
	// A retry without receivedAt (null) is the same content: no time given.
	body["receivedAt"] = nil
	if r := post(body); r.Status != http.StatusOK {
		t.Fatalf("retry without receivedAt: %d %s", r.Status, r.Body)
	}
}

func TestWarehouseServicesAPI(t *testing.T) {
	e2e.SeedFixture(t, e2e.TestDSN, recvE2EFixture())
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	wms := shipClient{t: t, base: srv.URL, token: e2e.MintWarehouseToken(t, "wh_e2e_recv_east")}
	performedAt := recvE2EAt(1)
	body := `{"organizationId": "org_e2e_recv_a", "reference": "JOB-E2E-1", "service": "labor_hour", "quantity": 1.5,
		"performedAt": "` + performedAt + `", "note": "re-labelled"}`
	first := wms.ok(wms.do(http.MethodPost, "/v0/warehouse/services", body), http.StatusCreated)
	if first["quantity"] != 1.5 || first["service"] != "labor_hour" || first["performedAt"] != performedAt {
		t.Fatalf("service %v", first)
	}
	again := wms.ok(wms.do(http.MethodPost, "/v0/warehouse/services", body), http.StatusOK)
	if again["id"] != first["id"] {
		t.Fatalf("retry answered %v, want %v", again["id"], first["id"])
	}
	e2e.WantProblem(t, wms.do(http.MethodPost, "/v0/warehouse/services", strings.Replace(body, "1.5", "1.25", 1)), 409, "reference_conflict")
	if p := e2e.WantProblem(t, wms.do(http.MethodPost, "/v0/warehouse/services", strings.Replace(body, "1.5", "1.2345", 1)), 400, "invalid_parameter"); p.Parameter != "quantity" {
		t.Fatalf("four decimals name %q", p.Parameter)
	}
	e2e.WantProblem(t, wms.do(http.MethodPost, "/v0/warehouse/services",
		strings.Replace(body, "org_e2e_recv_a", "org_e2e_recv_b", 1)), 422, "invalid_warehouse")
}

// recvMetric reads one sample of a server's /metrics.
func recvMetric(t *testing.T, base, series string) float64 {
	t.Helper()
	r := e2e.Do(t, http.MethodGet, base+"/metrics", nil)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf("/metrics has no %s", series)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", series, err))
	}
	return v
}
