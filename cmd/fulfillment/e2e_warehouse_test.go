package main

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// The warehouse's side of shipments, end to end: its list and the ship,
// with a warehouse's token, on the real binary (several replicas for the
// races), every answer checked against api/openapi.yaml by the harness.

// whE2EFixture: org_e2e_wh_a and org_e2e_wh_b both use wh_e2e_wh_main;
// org_e2e_wh_a also wh_e2e_wh_side. Stock at main: prod_e2e_wh_a 10,
// prod_e2e_wh_b 5, ctn_e2e_wh_a 20, ctn_e2e_wh_race 1000; prod_e2e_wh_low 1.
func whE2EFixture() map[string]any {
	stock := func(kind, id string, n int) map[string]any {
		return map[string]any{"warehouseId": "wh_e2e_wh_main", kind: id, "onHand": n}
	}
	return map[string]any{
		"organizations": []any{
			e2e.FixtureOrg("org_e2e_wh_a", "Warehouse Client A"),
			e2e.FixtureOrg("org_e2e_wh_b", "Warehouse Client B"),
		},
		"warehouses": []any{
			e2e.FixtureWarehouse("wh_e2e_wh_main", "Main DC", true, "org_e2e_wh_a", "org_e2e_wh_b"),
			e2e.FixtureWarehouse("wh_e2e_wh_side", "Side DC", true, "org_e2e_wh_a"),
		},
		"products": []any{
			e2e.FixtureItem("prod_e2e_wh_a", "org_e2e_wh_a", "WH-A"), e2e.FixtureItem("prod_e2e_wh_low", "org_e2e_wh_a", "WH-LOW"),
			e2e.FixtureItem("prod_e2e_wh_b", "org_e2e_wh_b", "WH-B"),
		},
		"cartons": []any{e2e.FixtureItem("ctn_e2e_wh_a", "org_e2e_wh_a", "WH-CTN-A"), e2e.FixtureItem("ctn_e2e_wh_race", "org_e2e_wh_a", "WH-CTN-RACE")},
		"stock": []any{
			stock("productId", "prod_e2e_wh_a", 10), stock("productId", "prod_e2e_wh_b", 5), stock("productId", "prod_e2e_wh_low", 1),
			stock("cartonId", "ctn_e2e_wh_a", 20), stock("cartonId", "ctn_e2e_wh_race", 1000),
		},
	}
}

var seedWhE2E = e2e.SeedFixtureOnce("warehouse", whE2EFixture)

// whPending creates and submits a shipment through c: a Pick & Pack of
// products or an SPD of cartons at the main warehouse.
func whPending(t *testing.T, c shipClient, kind, id string, quantity int) string {
	t.Helper()
	path, member, idMember := "/v0/shipments/pick-pack", "items", "productId"
	if kind == "spd" {
		path, member, idMember = "/v0/shipments/spd", "cartons", "cartonId"
	}
	s := c.ok(c.do("POST", path, map[string]any{"warehouseId": "wh_e2e_wh_main",
		member: []any{map[string]any{idMember: id, "quantity": quantity}}}), http.StatusCreated)
	sid := s["id"].(string)
	c.ok(c.do("POST", "/v0/shipments/"+sid+"/submit", nil), http.StatusOK)
	return sid
}

// whQueue walks every page of the warehouse's list in status and returns
// the IDs in order with each shipment's organization name.
func whQueue(t *testing.T, wms shipClient, status string) (ids []string, orgs map[string]string) {
	t.Helper()
	orgs = map[string]string{}
	for skip := 0; ; skip += 10 {
		page, r := wms.list(fmt.Sprintf("/v0/warehouse/shipments?status=%s&skip=%d", status, skip))
		for _, s := range page {
			shipWantShape(t, s)
			if s["status"] != status {
				t.Fatalf("status=%s listed %v", status, s)
			}
			org := s["organization"].(map[string]any)
			ids, orgs[s["id"].(string)] = append(ids, s["id"].(string)), org["name"].(string)
		}
		if r.Header.Get("Link") == "" {
			return ids, orgs
		}
	}
}

// whStock is on hand and reserved of an item at the main warehouse, as the
// organization reads it.
func whStock(t *testing.T, c shipClient, list, id string) [3]float64 {
	t.Helper()
	items, _ := c.list(list)
	return shipStockAt(t, items, id)["wh_e2e_wh_main"]
}

func TestWarehouseShipsShipments(t *testing.T) {
	seedWhE2E(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "SHUTDOWN_DELAY=0s"))
	a := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_wh_a", "shipments", "inventory")}
	b := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_wh_b", "shipments", "inventory")}
	wms := shipClient{t, srv.URL, e2e.MintWarehouseToken(t, "wh_e2e_wh_main")}
	side := shipClient{t, srv.URL, e2e.MintWarehouseToken(t, "wh_e2e_wh_side")}

	ppA := whPending(t, a, "pick_pack", "prod_e2e_wh_a", 2)
	spdA := whPending(t, a, "spd", "ctn_e2e_wh_a", 3)
	ppB := whPending(t, b, "pick_pack", "prod_e2e_wh_b", 1)
	draft := a.ok(a.do("POST", "/v0/shipments/spd", map[string]any{"warehouseId": "wh_e2e_wh_main",
		"cartons": []any{map[string]any{"cartonId": "ctn_e2e_wh_a", "quantity": 1}}}), http.StatusCreated)["id"].(string)

	// The list: every organization's pending shipments, oldest submission
	// first (earlier runs' shipments come before these), with their
	// organization; pending is the default; no draft.
	ids, orgs := whQueue(t, wms, "pending")
	mine := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id != ppA && id != spdA && id != ppB })
	if !slices.Equal(mine, []string{ppA, spdA, ppB}) || slices.Contains(ids, draft) {
		t.Fatalf("pending queue %v, want %s, %s, %s in that order and no draft", ids, ppA, spdA, ppB)
	}
	if orgs[ppA] != "Warehouse Client A" || orgs[ppB] != "Warehouse Client B" {
		t.Fatalf("organizations %v", orgs)
	}
	def, _ := wms.list("/v0/warehouse/shipments")
	if first, _ := wms.list("/v0/warehouse/shipments?status=pending"); !slices.Equal(shipIDs(def), shipIDs(first)) {
		t.Fatalf("the default list %v is not the pending one %v", shipIDs(def), shipIDs(first))
	}
	e2e.WantProblem(t, wms.do("GET", "/v0/warehouse/shipments?status=draft", nil), 400, "invalid_parameter")
	if ids, _ := whQueue(t, side, "pending"); slices.Contains(ids, ppA) {
		t.Fatalf("another warehouse lists %s", ppA)
	}

	// Credentials: each token on its own routes only.
	e2e.WantProblem(t, a.do("GET", "/v0/warehouse/shipments", nil), 403, "insufficient_scope")
	e2e.WantProblem(t, a.do("POST", "/v0/warehouse/shipments/"+ppA+"/ship", map[string]any{"carrier": "UPS", "trackingNumber": "1"}),
		403, "insufficient_scope")
	e2e.WantProblem(t, wms.do("GET", "/v0/shipments", nil), 403, "insufficient_scope")

	// Bodies are strict; nothing is written on a refusal.
	for body, param := range map[string]string{
		`{"carrier": 7, "trackingNumber": "1Z"}`:                        "carrier",
		`{"carrier": "UPS", "trackingNumber": ["1Z"]}`:                  "trackingNumber",
		`{"carrier": "UPS", "trackingNumber": "1Z", "parcels": 2}`:      "parcels",
		`{"carrier": "UPS"}`:                                            "trackingNumber",
		`{"carrier": "  ", "trackingNumber": "1Z"}`:                     "carrier",
		fmt.Sprintf(`{"carrier": "UPS", "trackingNumber": "%065d"}`, 1): "trackingNumber",
	} {
		p := e2e.WantProblem(t, wms.do("POST", "/v0/warehouse/shipments/"+ppA+"/ship", body), 400, "invalid_parameter")
		if p.Parameter != param {
			t.Errorf("%s: parameter %q, want %q", body, p.Parameter, param)
		}
	}
	if got := a.ok(a.do("GET", "/v0/shipments/"+ppA, nil), 200); got["status"] != "pending" || got["shippedAt"] != nil || got["tracking"] != nil {
		t.Fatalf("after refused ships: %v", got)
	}

	// The ship: reserved becomes consumed.
	before := whStock(t, a, "/v0/products?sku=WH-A", "prod_e2e_wh_a")
	shipped := wms.ok(wms.do("POST", "/v0/warehouse/shipments/"+ppA+"/ship",
		map[string]any{"carrier": " UPS ", "trackingNumber": "1Z999AA10123456784"}), 200)
	if shipped["status"] != "shipped" || !shipTimestamp.MatchString(fmt.Sprint(shipped["shippedAt"])) ||
		fmt.Sprint(shipped["tracking"]) != "map[carrier:UPS number:1Z999AA10123456784]" || shipped["updatedAt"] != shipped["shippedAt"] {
		t.Fatalf("shipped %v", shipped)
	}
	if st := whStock(t, a, "/v0/products?sku=WH-A", "prod_e2e_wh_a"); st != [3]float64{before[0] - 2, before[1] - 2, before[2]} {
		t.Fatalf("stock %v after the ship, was %v: on hand and reserved both go down by 2", st, before)
	}
	// The same ship again: 200, the same shipment, nothing changes.
	again := wms.ok(wms.do("POST", "/v0/warehouse/shipments/"+ppA+"/ship",
		map[string]any{"carrier": "UPS", "trackingNumber": "1Z999AA10123456784"}), 200)
	if again["shippedAt"] != shipped["shippedAt"] || again["updatedAt"] != shipped["updatedAt"] {
		t.Fatalf("replay %v, first %v", again, shipped)
	}
	if st := whStock(t, a, "/v0/products?sku=WH-A", "prod_e2e_wh_a"); st[0] != before[0]-2 {
		t.Fatalf("the replay moved the stock: %v", st)
	}
	e2e.WantProblem(t, wms.do("POST", "/v0/warehouse/shipments/"+ppA+"/ship",
		map[string]any{"carrier": "UPS", "trackingNumber": "1Z999AA10123456785"}), 409, "invalid_state")

	// The organization sees it shipped and may no longer cancel it.
	if got := a.ok(a.do("GET", "/v0/shipments/"+ppA, nil), 200); got["status"] != "shipped" || got["shippedAt"] != shipped["shippedAt"] {
		t.Fatalf("the organization reads %v", got)
	}
	list, _ := a.list("/v0/shipments?status=shipped")
	if !slices.Contains(shipIDs(list), ppA) {
		t.Fatalf("?status=shipped lists %v, not %s", shipIDs(list), ppA)
	}
	e2e.WantProblem(t, a.do("POST", "/v0/shipments/"+ppA+"/cancel", nil), 409, "invalid_state")
	if ids, _ := whQueue(t, wms, "shipped"); !slices.Contains(ids, ppA) {
		t.Fatalf("the warehouse's shipped list lacks %s", ppA)
	}

	// Refusals: a draft, a cancelled shipment, another warehouse's, an
	// unknown one.
	e2e.WantProblem(t, wms.do("POST", "/v0/warehouse/shipments/"+draft+"/ship", map[string]any{"carrier": "UPS", "trackingNumber": "1"}),
		409, "invalid_state")
	a.ok(a.do("POST", "/v0/shipments/"+spdA+"/cancel", nil), 200)
	e2e.WantProblem(t, wms.do("POST", "/v0/warehouse/shipments/"+spdA+"/ship", map[string]any{"carrier": "UPS", "trackingNumber": "1"}),
		409, "invalid_state")
	if ids, _ := whQueue(t, wms, "cancelled"); !slices.Contains(ids, spdA) || slices.Contains(ids, draft) {
		t.Fatalf("cancelled list %v", ids)
	}
	e2e.WantProblem(t, side.do("POST", "/v0/warehouse/shipments/"+ppB+"/ship", map[string]any{"carrier": "UPS", "trackingNumber": "1"}),
		404, "not_found")
	e2e.WantProblem(t, wms.do("POST", "/v0/warehouse/shipments/shp_nope/ship", map[string]any{"carrier": "UPS", "trackingNumber": "1"}),
		404, "not_found")

	// On hand short: a Pick & Pack reserved beyond on hand cannot ship.
	low := whPending(t, a, "pick_pack", "prod_e2e_wh_low", 2)
	r := wms.do("POST", "/v0/warehouse/shipments/"+low+"/ship", map[string]any{"carrier": "UPS", "trackingNumber": "1"})
	e2e.WantProblem(t, r, 409, "insufficient_stock")
	var short struct {
		Items []map[string]any `json:"items"`
	}
	r.JSON(t, &short)
	if len(short.Items) != 1 || short.Items[0]["productId"] != "prod_e2e_wh_low" || short.Items[0]["requested"] != float64(2) ||
		short.Items[0]["available"].(float64) >= 2 {
		t.Fatalf("shortage %v", short.Items)
	}
	if got := a.ok(a.do("GET", "/v0/shipments/"+low, nil), 200); got["status"] != "pending" {
		t.Fatalf("after a refused ship: %v", got)
	}
	a.ok(a.do("POST", "/v0/shipments/"+low+"/cancel", nil), 200)
}

// THE RACES, on three replicas of the service sharing one database.
func TestWarehouseShipRaces(t *testing.T) {
	seedWhE2E(t)
	env := e2e.BaseEnv(e2e.TestDSN, "SHUTDOWN_DELAY=0s")
	replicas := []*e2e.Server{e2e.StartServer(t, env), e2e.StartServer(t, env), e2e.StartServer(t, env)}
	token, wmsToken := e2e.MintToken(t, "org_e2e_wh_a", "shipments", "inventory"), e2e.MintWarehouseToken(t, "wh_e2e_wh_main")
	org := func(i int) shipClient { return shipClient{t, replicas[i%3].URL, token} }
	wms := func(i int) shipClient { return shipClient{t, replicas[i%3].URL, wmsToken} }
	const cartons = "/v0/cartons?sku=WH-CTN-RACE"

	// A ship racing the organization's cancel: exactly one wins.
	const pairs = 9
	ids := make([]string, pairs)
	for i := range ids {
		ids[i] = whPending(t, org(i), "spd", "ctn_e2e_wh_race", 2)
	}
	before := whStock(t, org(0), cartons, "ctn_e2e_wh_race")
	statuses := make([][2]int, pairs)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, id := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			statuses[i][0] = wms(i).do("POST", "/v0/warehouse/shipments/"+id+"/ship", map[string]any{"carrier": "DHL", "trackingNumber": id}).Status
		}()
		go func() {
			defer wg.Done()
			<-start
			statuses[i][1] = org(i+1).do("POST", "/v0/shipments/"+id+"/cancel", nil).Status
		}()
	}
	close(start)
	wg.Wait()
	shippedCount := 0
	for i, st := range statuses {
		switch st {
		case [2]int{200, 409}:
			shippedCount++
		case [2]int{409, 200}:
		default:
			t.Errorf("shipment %d: ship %d, cancel %d; want exactly one 200 and one 409", i, st[0], st[1])
		}
		got := org(i).ok(org(i).do("GET", "/v0/shipments/"+ids[i], nil), 200)
		if want := map[bool]string{true: "shipped", false: "cancelled"}[st[0] == 200]; got["status"] != want {
			t.Errorf("shipment %d is %v, want %s", i, got["status"], want)
		}
	}
	t.Logf("%d of %d shipped, the others cancelled", shippedCount, pairs)
	after := whStock(t, org(0), cartons, "ctn_e2e_wh_race")
	if want := [3]float64{before[0] - 2*float64(shippedCount), before[1] - 2*pairs, 0}; after[0] != want[0] || after[1] != want[1] {
		t.Fatalf("stock %v, was %v: want on hand down by 2 per shipped, reserved down by 2 per shipment", after, before)
	}

	// Ten identical ships at once: one effect, ten 200s with one shipment.
	id := whPending(t, org(0), "spd", "ctn_e2e_wh_race", 3)
	before = whStock(t, org(0), cartons, "ctn_e2e_wh_race")
	bodies := make([]map[string]any, 10)
	start = make(chan struct{})
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c := wms(i)
			r := c.do("POST", "/v0/warehouse/shipments/"+id+"/ship", map[string]any{"carrier": "DHL", "trackingNumber": "JD0146"})
			if r.Status != 200 {
				t.Errorf("ship %d: %d %s", i, r.Status, r.Body)
				return
			}
			r.JSON(t, &bodies[i])
		}()
	}
	close(start)
	wg.Wait()
	for i, b := range bodies {
		if b == nil || b["shippedAt"] != bodies[0]["shippedAt"] || b["status"] != "shipped" {
			t.Fatalf("ship %d answered %v, ship 0 %v", i, b, bodies[0])
		}
	}
	if after := whStock(t, org(0), cartons, "ctn_e2e_wh_race"); after != [3]float64{before[0] - 3, before[1] - 3, before[2]} {
		t.Fatalf("stock %v, was %v: want one ship of 3", after, before)
	}
}

// dayKey is the storefront's API key of org_e2e_day.
const dayKey = "fk_test_E2EwarehouseDayyyyyyyyyyyyyyyyyyyyyyyyy"

// dayFixture: org_e2e_day ("Day Client"), default warehouse wh_e2e_day,
// owns the sample order's two SKUs with no stock yet, and a storefront key.
func dayFixture() map[string]any {
	return map[string]any{
		"organizations": []any{map[string]any{"id": "org_e2e_day", "name": "Day Client", "defaultWarehouseId": "wh_e2e_day"}},
		"warehouses":    []any{e2e.FixtureWarehouse("wh_e2e_day", "Day DC", true, "org_e2e_day")},
		"products":      []any{e2e.FixtureItem("prod_e2e_day_sock", "org_e2e_day", "SOCK-MER-CH-4346"), e2e.FixtureItem("prod_e2e_day_key", "org_e2e_day", "KEY-LTH-01")},
		"apiKeys": []any{map[string]any{"id": "key_e2e_day", "organizationId": "org_e2e_day", "key": dayKey,
			"scopes": []string{"shipments", "inventory"}, "revoked": false}},
	}
}

// THE WAREHOUSE'S DAY, end to end on the real binary: a truck arrives,
// the storefront's order comes in through the intake, the warehouse lists
// its queue and ships it, and the organization sees it shipped, no longer
// cancellable, and its stock down by what left.
func TestWarehouseDayEndToEnd(t *testing.T) {
	e2e.SeedFixture(t, e2e.TestDSN, dayFixture())
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "SHUTDOWN_DELAY=0s"))
	org := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_day", "shipments", "inventory")}
	wms := shipClient{t, srv.URL, e2e.MintWarehouseToken(t, "wh_e2e_day")}
	const socks = "/v0/products?sku=SOCK-MER-CH-4346"
	stock := func() [3]float64 {
		t.Helper()
		items, _ := org.list(socks)
		return shipStockAt(t, items, "prod_e2e_day_sock")["wh_e2e_day"]
	}
	start := stock()
	run := strconv.FormatInt(time.Now().UnixNano(), 10) // the database outlives a run: a new reference and order each time

	// A truck arrives: 12 pairs of socks and 3 key rings raise on hand.
	receipt := wms.ok(wms.do("POST", "/v0/warehouse/receipts", map[string]any{
		"organizationId": "org_e2e_day", "reference": "ASN-DAY-" + run,
		"receivedAt": time.Now().UTC().Add(-time.Minute).Format("2006-01-02T15:04:05.000Z"),
		"items": []any{
			map[string]any{"productId": "prod_e2e_day_sock", "quantity": 12},
			map[string]any{"productId": "prod_e2e_day_key", "quantity": 3},
		},
	}), http.StatusCreated)
	if receipt["reference"] != "ASN-DAY-"+run {
		t.Fatalf("receipt %v", receipt)
	}
	received := stock()
	if received != [3]float64{start[0] + 12, start[1], start[2] + 12} {
		t.Fatalf("stock %v after the receipt, was %v: want on hand up by 12", received, start)
	}

	// The storefront's order (the sample: 2 pairs of socks, 1 key ring)
	// comes in through the intake and makes a pending shipment that
	// reserves them at the organization's default warehouse.
	r := e2e.Deliver(t, srv, dayKey, e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), run, nil))
	id := e2e.WantShipment(t, r)
	if got := org.ok(org.do("GET", "/v0/shipments/"+id, nil), 200); got["status"] != "pending" ||
		got["warehouse"].(map[string]any)["id"] != "wh_e2e_day" {
		t.Fatalf("the intake's shipment %v", got)
	}
	if st := stock(); st != [3]float64{received[0], received[1] + 2, received[2] - 2} {
		t.Fatalf("stock %v after the order, was %v: want 2 reserved", st, received)
	}

	// The warehouse lists its pending queue: the shipment is there, with
	// its organization.
	ids, orgs := whQueue(t, wms, "pending")
	if !slices.Contains(ids, id) || orgs[id] != "Day Client" {
		t.Fatalf("pending queue %v (organizations %v) lacks %s of Day Client", ids, orgs, id)
	}

	// It ships it.
	shipped := wms.ok(wms.do("POST", "/v0/warehouse/shipments/"+id+"/ship",
		map[string]any{"carrier": "DHL", "trackingNumber": "JD014600006543210987"}), 200)
	if shipped["status"] != "shipped" {
		t.Fatalf("shipped %v", shipped)
	}

	// The organization sees it shipped, with when and how, in its shipped
	// list; it can no longer cancel it; the queue no longer has it.
	got := org.ok(org.do("GET", "/v0/shipments/"+id, nil), 200)
	if got["status"] != "shipped" || !shipTimestamp.MatchString(fmt.Sprint(got["shippedAt"])) || got["shippedAt"] != shipped["shippedAt"] ||
		fmt.Sprint(got["tracking"]) != "map[carrier:DHL number:JD014600006543210987]" {
		t.Fatalf("the organization reads %v", got)
	}
	list, _ := org.list("/v0/shipments?status=shipped")
	if !slices.Contains(shipIDs(list), id) {
		t.Fatalf("?status=shipped lists %v, not %s", shipIDs(list), id)
	}
	e2e.WantProblem(t, org.do("POST", "/v0/shipments/"+id+"/cancel", nil), 409, "invalid_state")
	if ids, _ := whQueue(t, wms, "pending"); slices.Contains(ids, id) {
		t.Fatalf("the pending queue still lists %s", id)
	}

	// Its stock: on hand down by the 2 that left, reserved back to what it
	// was before the order.
	if st := stock(); st != [3]float64{received[0] - 2, received[1], received[2] - 2} {
		t.Fatalf("stock %v after the ship, was %v after the receipt: want on hand down by 2, reserved back", st, received)
	}
}
