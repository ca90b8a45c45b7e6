package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// shipE2EFixture: org_e2e_ship_a may use East and West (active) and Closed
// (inactive); org_e2e_ship_b uses East and its own Far. Cartons: ctn_1 (5 at
// East), ctn_2 (1 at East); product prod_1 (120 at East).
func shipE2EFixture() map[string]any {
	return map[string]any{
		"organizations": []any{
			e2e.FixtureOrg("org_e2e_ship_a", "Ship A"),
			e2e.FixtureOrg("org_e2e_ship_b", "Ship B"),
			e2e.FixtureOrg("org_e2e_ship_p", "Ship Production"),
		},
		"warehouses": []any{
			e2e.FixtureWarehouse("wh_e2e_ship_east", "East", true, "org_e2e_ship_a", "org_e2e_ship_b", "org_e2e_ship_p"),
			e2e.FixtureWarehouse("wh_e2e_ship_west", "West", true, "org_e2e_ship_a"),
			e2e.FixtureWarehouse("wh_e2e_ship_closed", "Closed", false, "org_e2e_ship_a"),
			e2e.FixtureWarehouse("wh_e2e_ship_far", "Far", true, "org_e2e_ship_b"),
		},
		"products": []any{
			e2e.FixtureItem("prod_e2e_ship_1", "org_e2e_ship_a", "TEE-BLK-M"),
			e2e.FixtureItem("prod_e2e_ship_2", "org_e2e_ship_a", "TEE-WHT-L"),
			e2e.FixtureItem("prod_e2e_ship_b", "org_e2e_ship_b", "TEE-BLK-M"),
			e2e.FixtureItem("prod_e2e_ship_p", "org_e2e_ship_p", "P-1"),
		},
		"cartons": []any{
			e2e.FixtureItem("ctn_e2e_ship_1", "org_e2e_ship_a", "CTN-TEE-24"),
			e2e.FixtureItem("ctn_e2e_ship_2", "org_e2e_ship_a", "CTN-MUG-12"),
			e2e.FixtureItem("ctn_e2e_ship_b", "org_e2e_ship_b", "CTN-B"),
		},
		"stock": []any{
			map[string]any{"warehouseId": "wh_e2e_ship_east", "cartonId": "ctn_e2e_ship_1", "onHand": 5},
			map[string]any{"warehouseId": "wh_e2e_ship_east", "cartonId": "ctn_e2e_ship_2", "onHand": 1},
			map[string]any{"warehouseId": "wh_e2e_ship_closed", "cartonId": "ctn_e2e_ship_1", "onHand": 50},
			map[string]any{"warehouseId": "wh_e2e_ship_east", "productId": "prod_e2e_ship_1", "onHand": 120},
		},
	}
}

var seedShipE2E = e2e.SeedFixtureOnce("shipments", shipE2EFixture)

var shipTimestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// shipClient sends requests as one organization.
type shipClient struct {
	t     *testing.T
	base  string
	token string
}

func (c shipClient) do(method, path string, body any, headers ...string) e2e.Response {
	c.t.Helper()
	return e2e.Do(c.t, method, c.base+path, body, append([]string{"Authorization", "Bearer " + c.token}, headers...)...)
}

// ok checks a 2xx JSON answer and decodes it into a generic value.
func (c shipClient) ok(r e2e.Response, status int) map[string]any {
	c.t.Helper()
	if r.Status != status || r.Header.Get("Content-Type") != "application/json" {
		c.t.Fatalf("status %d (%s), want %d: %s", r.Status, r.Header.Get("Content-Type"), status, r.Body)
	}
	var m map[string]any
	r.JSON(c.t, &m)
	return m
}

func (c shipClient) list(path string) ([]map[string]any, e2e.Response) {
	c.t.Helper()
	r := c.do("GET", path, nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
		c.t.Fatalf("GET %s: status %d: %s", path, r.Status, r.Body)
	}
	var out []map[string]any
	r.JSON(c.t, &out)
	return out, r
}

// shipWantShape checks the members every shipment carries.
func shipWantShape(t *testing.T, s map[string]any) {
	t.Helper()
	for _, k := range []string{"id", "kind", "status", "warehouse", "shippingName", "shippingCompany", "shippingAddress1",
		"shippingAddress2", "shippingCity", "shippingState", "shippingZip", "shippingCountry", "shippingPhone", "notes",
		"source", "test", "createdAt", "updatedAt", "submittedAt", "shippedAt", "tracking"} {
		if _, ok := s[k]; !ok {
			t.Fatalf("shipment lacks %s: %v", k, s)
		}
	}
	lines, other := "items", "cartons"
	if s["kind"] == "spd" {
		lines, other = "cartons", "items"
	}
	if _, ok := s[lines].([]any); !ok {
		t.Fatalf("%s shipment without %s: %v", s["kind"], lines, s)
	}
	if _, ok := s[other]; ok {
		t.Fatalf("%s shipment carries %s: %v", s["kind"], other, s)
	}
	for _, k := range []string{"createdAt", "updatedAt"} {
		if v, _ := s[k].(string); !shipTimestamp.MatchString(v) {
			t.Fatalf("%s %q is not RFC 3339 UTC with milliseconds", k, s[k])
		}
	}
}

func shipIDs(ss []map[string]any) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i], _ = s["id"].(string)
	}
	return out
}

// shipStockAt returns the stock entries of the item with id in a list of
// /v0/products or /v0/cartons, keyed by warehouse ID.
func shipStockAt(t *testing.T, items []map[string]any, id string) map[string][3]float64 {
	t.Helper()
	for _, it := range items {
		if it["id"] != id {
			continue
		}
		out := map[string][3]float64{}
		for _, e := range it["stock"].([]any) {
			st := e.(map[string]any)
			wh := st["warehouse"].(map[string]any)
			if wh["name"] == "" {
				t.Fatalf("stock entry without a warehouse name: %v", st)
			}
			onHand, reserved, available := st["onHand"].(float64), st["reserved"].(float64), st["available"].(float64)
			if available != onHand-reserved {
				t.Fatalf("available %v ≠ onHand %v − reserved %v", available, onHand, reserved)
			}
			out[wh["id"].(string)] = [3]float64{onHand, reserved, available}
		}
		return out
	}
	t.Fatalf("%s not listed", id)
	return nil
}

func TestShipmentsAPI(t *testing.T) {
	seedShipE2E(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "SHUTDOWN_DELAY=0s"))
	a := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_ship_a", "shipments", "inventory")}
	b := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_ship_b", "shipments", "inventory")}

	// 201: an SPD draft, with every shipping field.
	spdBody := map[string]any{
		"warehouseId": "wh_e2e_ship_east", "cartons": []any{map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 3}},
		"shippingName": "Zoë Ünal", "shippingCompany": "ACME", "shippingAddress1": "1 Main St", "shippingAddress2": "Apt 2",
		"shippingCity": "Newark", "shippingState": "NJ", "shippingZip": "07102", "shippingCountry": "us",
		"shippingPhone": "+1 555 0101", "notes": "fragile",
	}
	r := a.do("POST", "/v0/shipments/spd", spdBody)
	spd := a.ok(r, http.StatusCreated)
	shipWantShape(t, spd)
	spdID, _ := spd["id"].(string)
	if !strings.HasPrefix(spdID, "shp_") || r.Header.Get("Location") != "/v0/shipments/"+spdID {
		t.Fatalf("id %q Location %q", spdID, r.Header.Get("Location"))
	}
	want := map[string]any{
		"kind": "spd", "status": "draft", "warehouse": map[string]any{"id": "wh_e2e_ship_east", "name": "East"},
		"cartons":      []any{map[string]any{"cartonId": "ctn_e2e_ship_1", "sku": "CTN-TEE-24", "quantity": float64(3)}},
		"shippingName": "Zoë Ünal", "shippingCountry": "US", "notes": "fragile", "source": nil, "test": true, "submittedAt": nil,
	}
	for k, v := range want {
		if !reflect.DeepEqual(spd[k], v) {
			t.Errorf("%s = %#v, want %#v", k, spd[k], v)
		}
	}

	// 201: a Pick & Pack draft; lines of one product are merged.
	pp := a.ok(a.do("POST", "/v0/shipments/pick-pack", map[string]any{
		"warehouseId": "wh_e2e_ship_east",
		"items": []any{map[string]any{"productId": "prod_e2e_ship_1", "quantity": 2},
			map[string]any{"productId": "prod_e2e_ship_2", "quantity": 1}, map[string]any{"productId": "prod_e2e_ship_1", "quantity": 1}},
	}), http.StatusCreated)
	shipWantShape(t, pp)
	wantItems := []any{
		map[string]any{"productId": "prod_e2e_ship_1", "sku": "TEE-BLK-M", "quantity": float64(3)},
		map[string]any{"productId": "prod_e2e_ship_2", "sku": "TEE-WHT-L", "quantity": float64(1)},
	}
	if pp["kind"] != "pick_pack" || !reflect.DeepEqual(pp["items"], wantItems) || pp["shippingName"] != "" {
		t.Fatalf("pick & pack draft %v", pp)
	}
	ppID := pp["id"].(string)

	// 200: GET one shipment answers what POST answered.
	if got := a.ok(a.do("GET", "/v0/shipments/"+spdID, nil), http.StatusOK); !reflect.DeepEqual(got, spd) {
		t.Fatalf("GET %v\nPOST %v", got, spd)
	}

	// 200: submit reserves the cartons.
	sub := a.ok(a.do("POST", "/v0/shipments/"+spdID+"/submit", nil), http.StatusOK)
	if sub["status"] != "pending" || !shipTimestamp.MatchString(fmt.Sprint(sub["submittedAt"])) {
		t.Fatalf("submitted %v", sub)
	}
	cartons, _ := a.list("/v0/cartons")
	stock := shipStockAt(t, cartons, "ctn_e2e_ship_1")
	wantStock := map[string][3]float64{"wh_e2e_ship_east": {5, 3, 2}, "wh_e2e_ship_west": {0, 0, 0}}
	if !reflect.DeepEqual(stock, wantStock) {
		t.Fatalf("ctn_1 stock %v, want %v (only active warehouses of the organization)", stock, wantStock)
	}
	// Submitting Pick & Pack reserves products without a check (compared
	// with before: reruns of this test keep earlier runs' pending shipments).
	products, _ := a.list("/v0/products?sku=TEE-BLK-M")
	before := shipStockAt(t, products, "prod_e2e_ship_1")["wh_e2e_ship_east"]
	a.ok(a.do("POST", "/v0/shipments/"+ppID+"/submit", nil), http.StatusOK)
	products, _ = a.list("/v0/products?sku=TEE-BLK-M")
	if len(products) != 1 || products[0]["sku"] != "TEE-BLK-M" || products[0]["name"] != "TEE-BLK-M" {
		t.Fatalf("products by sku: %v", products)
	}
	if st := shipStockAt(t, products, "prod_e2e_ship_1"); st["wh_e2e_ship_east"] != [3]float64{120, before[1] + 3, before[2] - 3} {
		t.Fatalf("prod_1 stock %v, was %v", st, before)
	}

	// 422 insufficient_stock: each short carton with requested and available; nothing reserved.
	short := a.ok(a.do("POST", "/v0/shipments/spd", map[string]any{"warehouseId": "wh_e2e_ship_east", "cartons": []any{
		map[string]any{"cartonId": "ctn_e2e_ship_2", "quantity": 2}, map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 3},
	}}), http.StatusCreated)
	r = a.do("POST", "/v0/shipments/"+short["id"].(string)+"/submit", nil)
	e2e.WantProblem(t, r, 422, "insufficient_stock")
	var stockProblem struct {
		Items []struct {
			CartonID             string `json:"cartonId"`
			Requested, Available int64
		} `json:"items"`
	}
	r.JSON(t, &stockProblem)
	sort.Slice(stockProblem.Items, func(i, j int) bool { return stockProblem.Items[i].CartonID < stockProblem.Items[j].CartonID })
	if got := fmt.Sprint(stockProblem.Items); got != "[{ctn_e2e_ship_1 3 2} {ctn_e2e_ship_2 2 1}]" {
		t.Fatalf("short items %s", got)
	}
	cartons, _ = a.list("/v0/cartons?sku=CTN-TEE-24")
	if st := shipStockAt(t, cartons, "ctn_e2e_ship_1"); st["wh_e2e_ship_east"] != [3]float64{5, 3, 2} || len(cartons) != 1 {
		t.Fatalf("after a short submission: %v", st)
	}
	if got := a.ok(a.do("GET", "/v0/shipments/"+short["id"].(string), nil), 200); got["status"] != "draft" {
		t.Fatalf("short shipment is %v, want still a draft", got["status"])
	}

	// 409 invalid_state: submitting a pending shipment.
	e2e.WantProblem(t, a.do("POST", "/v0/shipments/"+spdID+"/submit", nil), 409, "invalid_state")

	// 200: cancel releases; 409 on a second cancel and on submitting a cancelled shipment.
	if c := a.ok(a.do("POST", "/v0/shipments/"+spdID+"/cancel", nil), 200); c["status"] != "cancelled" {
		t.Fatalf("cancelled %v", c)
	}
	cartons, _ = a.list("/v0/cartons")
	if st := shipStockAt(t, cartons, "ctn_e2e_ship_1"); st["wh_e2e_ship_east"] != [3]float64{5, 0, 5} {
		t.Fatalf("after cancel: %v", st)
	}
	e2e.WantProblem(t, a.do("POST", "/v0/shipments/"+spdID+"/cancel", nil), 409, "invalid_state")
	e2e.WantProblem(t, a.do("POST", "/v0/shipments/"+spdID+"/submit", nil), 409, "invalid_state")
	// ... and what was released fits now.
	a.ok(a.do("POST", "/v0/shipments/"+short["id"].(string)+"/cancel", nil), 200)

	// 200: the list, newest first, with status filter, pages and Link.
	all, _ := a.list("/v0/shipments")
	if got := shipIDs(all)[:3]; !reflect.DeepEqual(got, []string{short["id"].(string), ppID, spdID}) {
		t.Fatalf("newest first: %v", got)
	}
	for _, s := range all {
		shipWantShape(t, s)
	}
	page, r := a.list("/v0/shipments?take=2")
	if len(page) != 2 || r.Header.Get("Link") != `</v0/shipments?skip=2&take=2>; rel="next"` {
		t.Fatalf("page of 2: %d, Link %q", len(page), r.Header.Get("Link"))
	}
	pending, _ := a.list("/v0/shipments?status=pending")
	if len(pending) == 0 || pending[0]["id"] != ppID {
		t.Fatalf("pending: %v", shipIDs(pending))
	}
	for _, s := range pending {
		if s["status"] != "pending" {
			t.Fatalf("status filter let %v through", s["status"])
		}
	}
	if cancelled, _ := a.list("/v0/shipments?status=cancelled&take=10"); len(cancelled) < 2 {
		t.Fatalf("cancelled: %v", shipIDs(cancelled))
	}

	// 404: another organization's shipment, an unknown one, one that cannot be an ID.
	for _, path := range []string{"/v0/shipments/" + ppID, "/v0/shipments/" + ppID + "/submit", "/v0/shipments/" + ppID + "/cancel"} {
		method := "POST"
		if !strings.HasSuffix(path, "submit") && !strings.HasSuffix(path, "cancel") {
			method = "GET"
		}
		e2e.WantProblem(t, b.do(method, path, nil), 404, "not_found")
	}
	e2e.WantProblem(t, a.do("GET", "/v0/shipments/shp_nope", nil), 404, "not_found")
	e2e.WantProblem(t, a.do("GET", "/v0/shipments/'%20OR%201=1", nil), 404, "not_found")
	e2e.WantProblem(t, a.do("GET", "/v0/shipments/%00", nil), 404, "not_found")
	if bs, _ := b.list("/v0/shipments"); len(bs) != 0 {
		t.Fatalf("org B sees %v", shipIDs(bs))
	}
	if bc, _ := b.list("/v0/cartons"); len(bc) != 1 || bc[0]["id"] != "ctn_e2e_ship_b" {
		t.Fatalf("org B cartons %v", bc)
	}

	// 401 before anything else, 403 without the scope.
	for _, rt := range []struct{ method, path string }{
		{"GET", "/v0/shipments"}, {"GET", "/v0/shipments/" + ppID}, {"POST", "/v0/shipments/spd"},
		{"POST", "/v0/shipments/pick-pack"}, {"POST", "/v0/shipments/" + ppID + "/submit"},
		{"POST", "/v0/shipments/" + ppID + "/cancel"}, {"GET", "/v0/products"}, {"GET", "/v0/cartons"},
	} {
		e2e.WantProblem(t, e2e.Do(t, rt.method, srv.URL+rt.path+"?take=abc", "{not json"), 401, "invalid_token")
	}
	inventoryOnly := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_ship_a", "inventory")}
	r = inventoryOnly.do("POST", "/v0/shipments/spd", spdBody)
	e2e.WantProblem(t, r, 403, "insufficient_scope")
	if !strings.Contains(r.Header.Get("WWW-Authenticate"), `scope="shipments"`) {
		t.Fatalf("WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
	}
	e2e.WantProblem(t, inventoryOnly.do("GET", "/v0/shipments", nil), 403, "insufficient_scope")
	shipmentsOnly := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_ship_a", "shipments")}
	e2e.WantProblem(t, shipmentsOnly.do("GET", "/v0/products", nil), 403, "insufficient_scope")
	e2e.WantProblem(t, shipmentsOnly.do("GET", "/v0/cartons", nil), 403, "insufficient_scope")

	// 400 invalid_parameter, naming the parameter.
	cartonsOf := func(lines ...any) map[string]any {
		return map[string]any{"warehouseId": "wh_e2e_ship_east", "cartons": lines}
	}
	for _, tt := range []struct {
		name, path string
		body       any
		wantParam  string
	}{
		{"malformed JSON", "/v0/shipments/spd", `{"warehouseId": `, "body"},
		{"not an object", "/v0/shipments/spd", `[1, 2]`, "body"},
		{"two objects", "/v0/shipments/spd", `{} {}`, "body"},
		{"empty body", "/v0/shipments/spd", ``, "body"},
		{"unknown member", "/v0/shipments/spd", map[string]any{"warehouse_id": "wh_e2e_ship_east"}, "warehouse_id"},
		{"items in an SPD draft", "/v0/shipments/spd", map[string]any{"warehouseId": "wh_e2e_ship_east", "items": []any{}}, "items"},
		{"warehouse missing", "/v0/shipments/spd", map[string]any{"cartons": []any{map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 1}}}, "warehouseId"},
		{"warehouse not a string", "/v0/shipments/spd", map[string]any{"warehouseId": 7}, "warehouseId"},
		{"no cartons", "/v0/shipments/spd", cartonsOf(), "cartons"},
		{"quantity zero", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 0}), "cartons[0].quantity"},
		{"quantity negative", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 1}, map[string]any{"cartonId": "ctn_e2e_ship_2", "quantity": -1}), "cartons[1].quantity"},
		{"quantity fractional", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 1.5}), "cartons[0].quantity"},
		{"quantity a string", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": "1"}), "cartons[0].quantity"},
		{"quantity huge", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 1e20}), "cartons[0].quantity"},
		{"quantity missing", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "ctn_e2e_ship_1"}), "cartons[0].quantity"},
		{"carton missing", "/v0/shipments/spd", cartonsOf(map[string]any{"quantity": 1}), "cartons[0].cartonId"},
		{"unknown line member", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 1, "qty": 2}), "cartons[0].qty"},
		{"product ID not a string", "/v0/shipments/pick-pack", map[string]any{"warehouseId": "wh_e2e_ship_east", "items": []any{map[string]any{"productId": 1, "quantity": 1}}}, "items[0].productId"},
		{"country not ISO", "/v0/shipments/pick-pack", map[string]any{"warehouseId": "wh_e2e_ship_east", "shippingCountry": "USA", "items": []any{map[string]any{"productId": "prod_e2e_ship_1", "quantity": 1}}}, "shippingCountry"},
		{"NUL in a field", "/v0/shipments/pick-pack", map[string]any{"warehouseId": "wh_e2e_ship_east", "shippingCity": "a\x00b", "items": []any{map[string]any{"productId": "prod_e2e_ship_1", "quantity": 1}}}, "shippingCity"},
		{"notes too long", "/v0/shipments/pick-pack", map[string]any{"warehouseId": "wh_e2e_ship_east", "notes": strings.Repeat("n", 5001), "items": []any{map[string]any{"productId": "prod_e2e_ship_1", "quantity": 1}}}, "notes"},
	} {
		t.Run("400 "+tt.name, func(t *testing.T) {
			body := tt.body
			if s, ok := body.(string); ok {
				body = []byte(s) // sent as is
			}
			p := e2e.WantProblem(t, e2e.Do(t, "POST", srv.URL+tt.path, body, "Authorization", "Bearer "+a.token, "Content-Type", "application/json"), 400, "invalid_parameter")
			if p.Parameter != tt.wantParam {
				t.Fatalf("parameter %q, want %q (%s)", p.Parameter, tt.wantParam, p.Detail)
			}
		})
	}
	for _, q := range []string{"/v0/shipments?status=delivered", "/v0/shipments?take=11", "/v0/shipments?skip=-1",
		"/v0/products?take=0", "/v0/cartons?sku=" + strings.Repeat("s", 256)} {
		p := e2e.WantProblem(t, a.do("GET", q, nil), 400, "invalid_parameter")
		if p.Parameter == "" {
			t.Fatalf("%s: no parameter named", q)
		}
	}

	// 413 over the body limit; 415 for a body that is not JSON.
	huge := map[string]any{"warehouseId": "wh_e2e_ship_east", "notes": strings.Repeat("x", 2<<20)}
	e2e.WantProblem(t, a.do("POST", "/v0/shipments/spd", huge), 413, "payload_too_large")
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""} {
		r := e2e.Do(t, "POST", srv.URL+"/v0/shipments/spd", []byte(`{}`), "Authorization", "Bearer "+a.token, "Content-Type", ct)
		e2e.WantProblem(t, r, 415, "unsupported_media_type")
	}
	a.ok(a.do("POST", "/v0/shipments/spd", spdBody, "Content-Type", "application/json; charset=UTF-8"), http.StatusCreated)

	// 422 invalid_warehouse: inactive, another organization's, unknown, not an ID.
	for _, wh := range []string{"wh_e2e_ship_closed", "wh_e2e_ship_far", "wh_nope", "x y"} {
		body := map[string]any{"warehouseId": wh, "cartons": []any{map[string]any{"cartonId": "ctn_e2e_ship_1", "quantity": 1}}}
		e2e.WantProblem(t, a.do("POST", "/v0/shipments/spd", body), 422, "invalid_warehouse")
	}
	// org B may use East but not org A's items: 422 unknown_items listing them.
	r = b.do("POST", "/v0/shipments/pick-pack", map[string]any{"warehouseId": "wh_e2e_ship_east", "items": []any{
		map[string]any{"productId": "prod_e2e_ship_1", "quantity": 1}, map[string]any{"productId": "prod_e2e_ship_b", "quantity": 1},
		map[string]any{"productId": "prod_nope", "quantity": 1}, map[string]any{"productId": "prod_e2e_ship_1", "quantity": 2},
	}})
	e2e.WantProblem(t, r, 422, "unknown_items")
	var unknown struct{ IDs []string }
	r.JSON(t, &unknown)
	if !reflect.DeepEqual(unknown.IDs, []string{"prod_e2e_ship_1", "prod_nope"}) {
		t.Fatalf("unknown ids %v", unknown.IDs)
	}
	r = a.do("POST", "/v0/shipments/spd", cartonsOf(map[string]any{"cartonId": "prod_e2e_ship_1", "quantity": 1}))
	e2e.WantProblem(t, r, 422, "unknown_items")
}

// In production shipments are real: test is false.
func TestShipmentsInProductionAreNotTests(t *testing.T) {
	seedShipE2E(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "ENVIRONMENT=production", "SHUTDOWN_DELAY=0s"))
	c := shipClient{t, srv.URL, e2e.MintToken(t, "org_e2e_ship_p", "shipments")}
	s := c.ok(c.do("POST", "/v0/shipments/pick-pack", map[string]any{
		"warehouseId": "wh_e2e_ship_east", "items": []any{map[string]any{"productId": "prod_e2e_ship_p", "quantity": 1}},
	}), http.StatusCreated)
	if s["test"] != false {
		t.Fatalf("test %v in production", s["test"])
	}
	var again map[string]any
	raw := c.do("GET", "/v0/shipments/"+s["id"].(string), nil)
	if err := json.Unmarshal(raw.Body, &again); err != nil || again["test"] != false {
		t.Fatalf("stored test %v (%v)", again["test"], err)
	}
}
