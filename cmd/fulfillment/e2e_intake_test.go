package main

// End-to-end tests of the storefront order intake: the real
// binary, the real database, the samples of docs/samples and payloads made
// here.

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Keys of the intake fixture: fk_test_ (sandbox) or fk_live_ (production)
// and 32+ letters.
const (
	intakeKeyA       = "fk_test_E2EintakeAaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	intakeKeyShip    = "fk_test_E2EintakeShipOnlyyyyyyyyyyyyyyyyyyyyyyy"
	intakeKeyRevoked = "fk_test_E2EintakeRevokeddddddddddddddddddddddd"
	intakeKeyLive    = "fk_live_E2EintakeLiveeeeeeeeeeeeeeeeeeeeeeeeeee"
	intakeKeySig     = "fk_test_E2EintakeSigggggggggggggggggggggggggggg"
	intakeKeyNoWH    = "fk_test_E2EintakeNoWarehouseeeeeeeeeeeeeeeeeeee"
	intakeKeyFirst   = "fk_test_E2EintakeFirstttttttttttttttttttttttttt"
	intakeKeyInact   = "fk_test_E2EintakeInactiveeeeeeeeeeeeeeeeeeeeeee"
	intakeSecret     = "e2e-intake-webhook-secret-0123456789"
	intakeLargeSKUs  = 1000
)

// intakeFixture: org_e2e_in_a uses Alpha and Bravo (default Bravo);
// org_e2e_in_first has no default and uses Zulu and Alpha; org_e2e_in_inact
// has an inactive default (Aardvark) and uses Zulu; org_e2e_in_nowh has no
// warehouse; org_e2e_in_sig has a webhook secret. Every organization has the
// samples' SKUs; org_e2e_in_a also LARGE-0000..0999.
func intakeFixture() map[string]any {
	orgs := []string{"org_e2e_in_a", "org_e2e_in_first", "org_e2e_in_inact", "org_e2e_in_nowh", "org_e2e_in_sig"}
	var products, keys []any
	for _, org := range orgs {
		for i, sku := range []string{"SOCK-MER-CH-4346", "KEY-LTH-01"} {
			products = append(products, map[string]any{"id": fmt.Sprintf("prod_%s_%d", org[8:], i), "organizationId": org, "sku": sku, "name": sku})
		}
	}
	for i := range intakeLargeSKUs {
		products = append(products, map[string]any{"id": fmt.Sprintf("prod_in_large_%04d", i), "organizationId": "org_e2e_in_a",
			"sku": fmt.Sprintf("LARGE-%04d", i), "name": "Large"})
	}
	key := func(id, org, k string, revoked bool, scopes ...string) map[string]any {
		return map[string]any{"id": id, "organizationId": org, "key": k, "scopes": scopes, "revoked": revoked}
	}
	keys = append(keys,
		key("key_e2e_in_a", "org_e2e_in_a", intakeKeyA, false, "shipments", "inventory"),
		key("key_e2e_in_ship", "org_e2e_in_a", intakeKeyShip, false, "shipments"),
		key("key_e2e_in_rev", "org_e2e_in_a", intakeKeyRevoked, true, "shipments", "inventory"),
		key("key_e2e_in_live", "org_e2e_in_a", intakeKeyLive, false, "shipments", "inventory"),
		key("key_e2e_in_sig", "org_e2e_in_sig", intakeKeySig, false, "shipments", "inventory"),
		key("key_e2e_in_nowh", "org_e2e_in_nowh", intakeKeyNoWH, false, "shipments", "inventory"),
		key("key_e2e_in_first", "org_e2e_in_first", intakeKeyFirst, false, "shipments", "inventory"),
		key("key_e2e_in_inact", "org_e2e_in_inact", intakeKeyInact, false, "inventory", "shipments"),
	)
	return map[string]any{
		"organizations": []any{
			map[string]any{"id": "org_e2e_in_a", "name": "Intake A", "defaultWarehouseId": "wh_e2e_in_b"},
			map[string]any{"id": "org_e2e_in_first", "name": "Intake First"},
			map[string]any{"id": "org_e2e_in_inact", "name": "Intake Inactive", "defaultWarehouseId": "wh_e2e_in_off"},
			map[string]any{"id": "org_e2e_in_nowh", "name": "Intake No Warehouse"},
			map[string]any{"id": "org_e2e_in_sig", "name": "Intake Signed"},
		},
		"warehouses": []any{
			fixtureWarehouse("wh_e2e_in_a", "Alpha", true, "org_e2e_in_a", "org_e2e_in_first", "org_e2e_in_sig"),
			fixtureWarehouse("wh_e2e_in_b", "Bravo", true, "org_e2e_in_a"),
			fixtureWarehouse("wh_e2e_in_z", "Zulu", true, "org_e2e_in_first", "org_e2e_in_inact"),
			fixtureWarehouse("wh_e2e_in_off", "Aardvark", false, "org_e2e_in_inact"),
		},
		"products":       products,
		"apiKeys":        keys,
		"webhookSecrets": []any{map[string]any{"organizationId": "org_e2e_in_sig", "secret": intakeSecret}},
	}
}

var (
	intakeOnce   sync.Once
	intakeTokenA string // an access token of org_e2e_in_a with scope shipments
)

// intakeServer seeds the fixture once and starts a sandbox server for t.
func intakeServer(t *testing.T) *server {
	t.Helper()
	intakeOnce.Do(func() {
		seedFixture(t, testDSN, intakeFixture())
		intakeTokenA = mintToken(t, "org_e2e_in_a", "shipments")
	})
	if intakeTokenA == "" {
		t.Fatal("the intake fixture could not be set up (see the first test that failed)")
	}
	return startServer(t, baseEnv(testDSN))
}

func intakeSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withID returns a copy of a JSON order with another id (numbers kept
// exact) and the changes in set applied at the top level.
func withID(t *testing.T, body []byte, id string, set map[string]any) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	m["id"] = json.Number(id)
	for k, v := range set {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func deliver(t *testing.T, srv *server, key string, body []byte, headers ...string) response {
	t.Helper()
	h := append([]string{"Authorization", "Bearer " + key}, headers...)
	return do(t, "POST", srv.URL+"/v0/storefront/orders", body, h...)
}

// deliverUntilAnswered delivers body again while it is answered 503
// unavailable with Retry-After (shed, or the database away), as a
// storefront retries, for at most a minute; it returns the last answer.
func deliverUntilAnswered(t *testing.T, srv *server, key string, body []byte) response {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := deliver(t, srv, key, body)
		if r.Status != 503 || time.Now().After(deadline) {
			return r
		}
		if a := intakeJSON(t, r); a.Error != "unavailable" || r.Header.Get("Retry-After") == "" {
			t.Errorf("503 %s (Retry-After %q), want unavailable with Retry-After", r.Body, r.Header.Get("Retry-After"))
			return r
		}
		time.Sleep(time.Duration(50+rand.IntN(200)) * time.Millisecond) // sooner than Retry-After: the test has no four hours
	}
}

// intakeAnswer is every member an intake body may carry.
type intakeAnswer struct {
	Success     *bool    `json:"success"`
	ShipmentID  *string  `json:"shipmentId"`
	Duplicate   bool     `json:"duplicate"`
	Skipped     string   `json:"skipped"`
	Error       string   `json:"error"`
	Message     string   `json:"message"`
	SKUs        []string `json:"skus"`
	LineItemIDs []string `json:"lineItemIds"`
	Missing     []string `json:"missing"`
}

func intakeJSON(t *testing.T, r response) intakeAnswer {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json: %d %s", ct, r.Status, r.Body)
	}
	var a intakeAnswer
	r.JSON(t, &a)
	if a.Success == nil {
		t.Fatalf("no success member: %s", r.Body)
	}
	return a
}

func wantShipment(t *testing.T, r response) string {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d, want 200: %s", r.Status, r.Body)
	}
	a := intakeJSON(t, r)
	if !*a.Success || a.ShipmentID == nil || !strings.HasPrefix(*a.ShipmentID, "shp_") || a.Duplicate {
		t.Fatalf("answer %s, want a new shipment", r.Body)
	}
	return *a.ShipmentID
}

func wantIntakeError(t *testing.T, r response, status int, code string) intakeAnswer {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	a := intakeJSON(t, r)
	if *a.Success || a.Error != code {
		t.Fatalf("answer %s, want error %s", r.Body, code)
	}
	return a
}

func getJSON(t *testing.T, srv *server, path, token string, v any) response {
	t.Helper()
	r := do(t, "GET", srv.URL+path, nil, "Authorization", "Bearer "+token)
	if r.Status == 200 && v != nil {
		r.JSON(t, v)
	}
	return r
}

// receiptOf reads the order receipt as org_e2e_in_a.
func receiptOf(t *testing.T, srv *server, orderID string) map[string]any {
	t.Helper()
	var m map[string]any
	if r := getJSON(t, srv, "/v0/storefront/orders/"+orderID, intakeTokenA, &m); r.Status != 200 {
		t.Fatalf("receipt of %s: %d %s", orderID, r.Status, r.Body)
	}
	return m
}

var intakeTimestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestIntakeSampleOrder(t *testing.T) {
	srv := intakeServer(t)
	first := deliver(t, srv, intakeKeyA, intakeSample(t, "orders-create.json"))
	id := wantShipment(t, first)
	if body := strings.TrimSpace(string(first.Body)); body != `{"success":true,"shipmentId":"`+id+`"}` {
		t.Errorf("body %s, want exactly success and shipmentId", body)
	}

	var s map[string]any
	if r := getJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s); r.Status != 200 {
		t.Fatalf("GET the shipment: %d %s", r.Status, r.Body)
	}
	want := map[string]any{
		"id": id, "kind": "pick_pack", "status": "pending", "warehouse": map[string]any{"id": "wh_e2e_in_b", "name": "Bravo"},
		"shippingName": "Zoë Müller", "shippingCompany": "Bäckerei Größe GmbH", "shippingAddress1": "Straße des 17. Juni 135",
		"shippingAddress2": "Hinterhaus, 2. OG, c/o Ünal", "shippingCity": "Berlin", "shippingState": "", "shippingZip": "10623",
		"shippingCountry": "DE", "shippingPhone": "+49 30 1234567",
		"notes": "Bitte beim Nachbarn (Hinterhaus, 2. OG) abgeben 🙏 — danke!",
		"items": []any{
			map[string]any{"productId": "prod_in_a_0", "sku": "SOCK-MER-CH-4346", "quantity": float64(2)},
			map[string]any{"productId": "prod_in_a_1", "sku": "KEY-LTH-01", "quantity": float64(1)},
		},
		"source": map[string]any{"type": "storefront", "orderId": "5726128734520", "orderNumber": "1042"},
		"test":   true,
	}
	for k, v := range want {
		if !reflect.DeepEqual(s[k], v) {
			t.Errorf("shipment %s = %#v, want %#v", k, s[k], v)
		}
	}

	// The same delivery again: the same shipment, duplicate, nothing new.
	again := deliver(t, srv, intakeKeyA, intakeSample(t, "orders-create.json"))
	if strings.TrimSpace(string(again.Body)) != `{"success":true,"shipmentId":"`+id+`","duplicate":true}` {
		t.Fatalf("redelivery: %d %s", again.Status, again.Body)
	}
	rec := receiptOf(t, srv, "5726128734520")
	wantRec := map[string]any{"orderId": "5726128734520", "orderNumber": "1042", "status": "succeeded", "attempts": float64(1),
		"lastError": nil, "shipmentId": id, "traceId": first.Header.Get("X-Trace-Id")}
	for k, v := range wantRec {
		if !reflect.DeepEqual(rec[k], v) {
			t.Errorf("receipt %s = %#v, want %#v", k, rec[k], v)
		}
	}
	for _, k := range []string{"firstReceivedAt", "lastReceivedAt"} {
		if s, _ := rec[k].(string); !intakeTimestamp.MatchString(s) {
			t.Errorf("receipt %s = %#v", k, rec[k])
		}
	}
	if rec["firstReceivedAt"] == rec["lastReceivedAt"] {
		t.Errorf("lastReceivedAt did not move with the redelivery: %v", rec)
	}
}

func TestIntakePickupSampleHasNoShippingAddress(t *testing.T) {
	srv := intakeServer(t)
	r := deliver(t, srv, intakeKeyA, intakeSample(t, "orders-create-pickup.json"))
	wantIntakeError(t, r, 422, "missing_shipping_address")
	rec := receiptOf(t, srv, "5726128734599")
	if rec["status"] != "failed" || rec["lastError"] != "missing_shipping_address" || rec["attempts"] != float64(1) ||
		rec["shipmentId"] != nil || rec["traceId"] != r.Header.Get("X-Trace-Id") {
		t.Fatalf("receipt %v", rec)
	}
}

func TestIntakeAuthentication(t *testing.T) {
	srv := intakeServer(t)
	body := withID(t, intakeSample(t, "orders-create.json"), "1000001", nil)
	for name, headers := range map[string][]string{
		"no header":         nil,
		"basic":             {"Authorization", "Basic " + intakeKeyA},
		"malformed":         {"Authorization", "Bearer fk_test_short"},
		"unknown":           {"Authorization", "Bearer fk_test_UnknownKeyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"},
		"revoked":           {"Authorization", "Bearer " + intakeKeyRevoked},
		"other environment": {"Authorization", "Bearer " + intakeKeyLive},
		"access token":      {"Authorization", "Bearer " + intakeTokenA},
	} {
		t.Run(name, func(t *testing.T) {
			r := do(t, "POST", srv.URL+"/v0/storefront/orders", body, headers...)
			a := wantIntakeError(t, r, 401, "invalid_api_key")
			if strings.Contains(string(r.Body), "fk_") {
				t.Errorf("the answer repeats the key: %s", r.Body)
			}
			_ = a
		})
	}
	a := wantIntakeError(t, deliver(t, srv, intakeKeyShip, body), 403, "insufficient_scope")
	if !reflect.DeepEqual(a.Missing, []string{"inventory"}) {
		t.Errorf("missing %v, want [inventory]", a.Missing)
	}
	if r := getJSON(t, srv, "/v0/storefront/orders/1000001", intakeTokenA, nil); r.Status != 404 {
		t.Errorf("a refused key left a receipt: %d %s", r.Status, r.Body)
	}
}

func TestIntakeChecksAndPayloadErrors(t *testing.T) {
	srv := intakeServer(t)
	sample := intakeSample(t, "orders-create.json")
	huge := append(bytes.Repeat([]byte(" "), 5<<20), sample...)
	t.Run("key before size", func(t *testing.T) {
		wantIntakeError(t, deliver(t, srv, "fk_test_nope", huge), 401, "invalid_api_key")
	})
	t.Run("size before media type", func(t *testing.T) {
		wantIntakeError(t, deliver(t, srv, intakeKeyA, huge, "Content-Type", "text/plain"), 413, "payload_too_large")
	})
	t.Run("media type before JSON", func(t *testing.T) {
		wantIntakeError(t, deliver(t, srv, intakeKeyA, []byte("nope"), "Content-Type", "text/plain"), 415, "unsupported_media_type")
	})
	t.Run("charset allowed", func(t *testing.T) {
		wantShipment(t, deliver(t, srv, intakeKeyA, withID(t, sample, "1000002", nil), "Content-Type", "application/json; charset=utf-8"))
	})
	for name, body := range map[string]string{
		"not JSON":                   `{"id": 1000003, "line_items": [`,
		"id missing":                 `{"line_items": []}`,
		"id a string":                `{"id": "1000004", "line_items": []}`,
		"id zero":                    `{"id": 0, "line_items": []}`,
		"id fractional":              `{"id": 1000005.5, "line_items": []}`,
		"id beyond int64":            `{"id": 92233720368547758070, "line_items": []}`,
		"line_items missing":         `{"id": 1000006, "shipping_address": {"name": "A"}}`,
		"quantity zero":              `{"id": 1000007, "line_items": [{"id": 1, "sku": "KEY-LTH-01", "quantity": 0}]}`,
		"quantity negative":          `{"id": 1000008, "line_items": [{"id": 1, "sku": "KEY-LTH-01", "quantity": -1}]}`,
		"quantity a string":          `{"id": 1000009, "line_items": [{"id": 1, "sku": "KEY-LTH-01", "quantity": "1"}]}`,
		"mapped field of wrong type": `{"id": 1000010, "note": 5, "line_items": []}`,
		"test a string":              `{"id": 1000011, "test": "true", "line_items": []}`,
		"cancelled_at false":         `{"id": 1000012, "cancelled_at": false, "line_items": []}`,
		"order_number a string":      `{"id": 1000013, "order_number": "abc", "line_items": []}`,
		"line id a string":           `{"id": 1000014, "line_items": [{"id": "1", "sku": "KEY-LTH-01", "quantity": 1}]}`,
		"requires_shipping a string": `{"id": 1000015, "line_items": [{"id": 1, "sku": "KEY-LTH-01", "quantity": 1, "requires_shipping": "false"}]}`,
		"shipping_address a string":  `{"id": 1000016, "shipping_address": "Berlin", "line_items": [{"id": 1, "sku": "KEY-LTH-01", "quantity": 1}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			a := wantIntakeError(t, deliver(t, srv, intakeKeyA, []byte(body)), 400, "invalid_payload")
			if a.Message == "" {
				t.Errorf("invalid_payload without a message")
			}
		})
	}
	// A refused payload whose id could be read is a recorded attempt.
	rec := receiptOf(t, srv, "1000007")
	if rec["status"] != "failed" || rec["lastError"] != "invalid_payload" || rec["attempts"] != float64(1) {
		t.Errorf("receipt of a refused payload: %v", rec)
	}
	// GET of the webhook's path is the operator's list of receipts (an
	// access token's route): an API key is no access token.
	if r := do(t, "PUT", srv.URL+"/v0/storefront/orders", nil, "Authorization", "Bearer "+intakeKeyA); r.Status != 405 {
		t.Errorf("PUT of the webhook: %d", r.Status)
	}
	if r := do(t, "GET", srv.URL+"/v0/storefront/orders", nil, "Authorization", "Bearer "+intakeKeyA); r.Status != 401 {
		t.Errorf("GET of the webhook's path with an API key: %d", r.Status)
	}
}

func TestIntakeUnknownSKUsThenRetry(t *testing.T) {
	srv := intakeServer(t)
	body := []byte(`{"id": 2000001, "order_number": 2001, "line_items": [
		{"id": 1, "sku": "NEW-SKU-1", "quantity": 1},
		{"id": 2, "sku": "SOCK-MER-CH-4346", "quantity": 1},
		{"id": 3, "sku": " NEW-SKU-2", "quantity": 1},
		{"id": 4, "sku": "NEW-SKU-1 ", "quantity": 2},
		{"id": 5, "sku": "sock-mer-ch-4346", "quantity": 1}],
		"shipping_address": {"name": "Retry", "country_code": "FR"}}`)
	a := wantIntakeError(t, deliver(t, srv, intakeKeyA, body), 422, "unknown_skus")
	if !reflect.DeepEqual(a.SKUs, []string{"NEW-SKU-1", "NEW-SKU-2", "sock-mer-ch-4346"}) {
		t.Fatalf("skus %v: want every unknown SKU once, trimmed, in payload order, case-sensitive", a.SKUs)
	}
	rec := receiptOf(t, srv, "2000001")
	if rec["status"] != "failed" || rec["lastError"] != "unknown_skus" || rec["attempts"] != float64(1) || rec["shipmentId"] != nil {
		t.Fatalf("receipt after the refusal: %v", rec)
	}
	seedFixture(t, testDSN, map[string]any{"products": []any{
		map[string]any{"id": "prod_in_new_1", "organizationId": "org_e2e_in_a", "sku": "NEW-SKU-1", "name": "N1"},
		map[string]any{"id": "prod_in_new_2", "organizationId": "org_e2e_in_a", "sku": "NEW-SKU-2", "name": "N2"},
		map[string]any{"id": "prod_in_new_3", "organizationId": "org_e2e_in_a", "sku": "sock-mer-ch-4346", "name": "lower"},
	}})
	retry := deliver(t, srv, intakeKeyA, body)
	id := wantShipment(t, retry)
	rec = receiptOf(t, srv, "2000001")
	if rec["status"] != "succeeded" || rec["attempts"] != float64(2) || rec["shipmentId"] != id ||
		rec["lastError"] != "unknown_skus" || rec["traceId"] != retry.Header.Get("X-Trace-Id") {
		t.Fatalf("receipt after the retry: %v", rec)
	}
	var s map[string]any
	getJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
	items, _ := s["items"].([]any)
	if len(items) != 4 || items[0].(map[string]any)["quantity"] != float64(3) || s["shippingCountry"] != "FR" {
		t.Fatalf("shipment %v", s)
	}
}

func TestIntakeMissingSKU(t *testing.T) {
	srv := intakeServer(t)
	a := wantIntakeError(t, deliver(t, srv, intakeKeyA, []byte(`{"id": 2000002, "line_items": [
		{"id": 14658123456011, "sku": "KEY-LTH-01", "quantity": 1},
		{"id": 9223372036854775807, "sku": "  ", "quantity": 1},
		{"id": 14658123456013, "sku": null, "quantity": 1, "requires_shipping": false},
		{"id": 9007199254740993, "sku": null, "quantity": 1}],
		"shipping_address": {"name": "A"}}`)), 422, "missing_sku")
	if !reflect.DeepEqual(a.LineItemIDs, []string{"9223372036854775807", "9007199254740993"}) {
		t.Fatalf("lineItemIds %v", a.LineItemIDs)
	}
}

func TestIntakeWarehouseChoice(t *testing.T) {
	srv := intakeServer(t)
	order := []byte(`{"id": 2000003, "line_items": [{"id": 1, "sku": "KEY-LTH-01", "quantity": 1}], "shipping_address": {"name": "A"}}`)
	wantIntakeError(t, deliver(t, srv, intakeKeyNoWH, order), 422, "no_warehouse")
	for key, want := range map[string]struct{ org, wh string }{
		intakeKeyFirst: {"org_e2e_in_first", "wh_e2e_in_a"}, // no default: Alpha before Zulu
		intakeKeyInact: {"org_e2e_in_inact", "wh_e2e_in_z"}, // inactive default: the first active
	} {
		id := wantShipment(t, deliver(t, srv, key, order))
		var s map[string]any
		if r := getJSON(t, srv, "/v0/shipments/"+id, mintToken(t, want.org, "shipments"), &s); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if wh := s["warehouse"].(map[string]any)["id"]; wh != want.wh {
			t.Errorf("%s: warehouse %v, want %s", want.org, wh, want.wh)
		}
	}
}

func TestIntakeSkippedOrders(t *testing.T) {
	srv := intakeServer(t)
	sample := intakeSample(t, "orders-create.json")
	for _, tt := range []struct {
		id, skipped string
		body        []byte
	}{
		{"2000004", "order_cancelled", withID(t, sample, "2000004", map[string]any{"cancelled_at": "2025-03-14T12:00:00+01:00"})},
		{"2000005", "no_shippable_items", []byte(`{"id": 2000005, "line_items": [{"id": 1, "sku": "", "quantity": 1, "requires_shipping": false}]}`)},
	} {
		for i, wantDup := range []bool{false, true} {
			r := deliver(t, srv, intakeKeyA, tt.body)
			want := `{"success":true,"shipmentId":null,"skipped":"` + tt.skipped + `"}`
			if wantDup {
				want = `{"success":true,"shipmentId":null,"duplicate":true,"skipped":"` + tt.skipped + `"}`
			}
			if r.Status != 200 || strings.TrimSpace(string(r.Body)) != want {
				t.Fatalf("%s delivery %d: %d %s, want %s", tt.id, i, r.Status, r.Body, want)
			}
		}
		rec := receiptOf(t, srv, tt.id)
		if rec["status"] != "succeeded" || rec["shipmentId"] != nil || rec["skipped"] != tt.skipped || rec["attempts"] != float64(1) {
			t.Errorf("receipt %v", rec)
		}
	}
}

func TestIntakeIDsNullsAndUnicode(t *testing.T) {
	srv := intakeServer(t)
	body := []byte(`{"id": 9223372036854775807, "order_number": 9007199254740993, "note": "Ring twice 🔔🙏 — 山田さん ✓",
		"line_items": [{"id": 9007199254740995, "sku": "\tKEY-LTH-01\n", "quantity": 2, "title": "Schlüssel 🔑"}],
		"shipping_address": {"name": "山田 太郎 👋", "company": null, "address1": "1-2-3 Shibuya", "address2": null,
			"city": "東京", "province_code": null, "zip": null, "country_code": "JP", "phone": null}}`)
	id := wantShipment(t, deliver(t, srv, intakeKeyA, body))
	var s map[string]any
	getJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
	for k, v := range map[string]any{
		"shippingName": "山田 太郎 👋", "shippingCompany": "", "shippingAddress2": "", "shippingCity": "東京",
		"shippingState": "", "shippingZip": "", "shippingCountry": "JP", "shippingPhone": "",
		"notes":  "Ring twice 🔔🙏 — 山田さん ✓",
		"source": map[string]any{"type": "storefront", "orderId": "9223372036854775807", "orderNumber": "9007199254740993"},
	} {
		if !reflect.DeepEqual(s[k], v) {
			t.Errorf("%s = %#v, want %#v", k, s[k], v)
		}
	}
	rec := receiptOf(t, srv, "9223372036854775807")
	if rec["orderId"] != "9223372036854775807" || rec["orderNumber"] != "9007199254740993" || rec["shipmentId"] != id {
		t.Errorf("receipt %v", rec)
	}
}

func TestIntakeLargeOrder(t *testing.T) {
	srv := intakeServer(t)
	var b strings.Builder
	b.WriteString(`{"id": 2000006, "line_items": [`)
	const lines = 12000 // each of the 1000 SKUs 12 times: about 4.5 MB
	for i := range lines {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"sku":"LARGE-%04d","quantity":%d,"requires_shipping":true,"title":"%s","properties":[]}`,
			14658123456011+i, i%intakeLargeSKUs, 1+i%2, strings.Repeat("Merino Crew Sock ", 15))
	}
	b.WriteString(`], "shipping_address": {"name": "Bulk Buyer"}}`)
	if b.Len() > 5<<20 || b.Len() < 4<<20 {
		t.Fatalf("order of %d bytes: want 4–5 MiB", b.Len())
	}
	id := wantShipment(t, deliver(t, srv, intakeKeyA, []byte(b.String())))
	var s map[string]any
	getJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
	items, _ := s["items"].([]any)
	if len(items) != intakeLargeSKUs {
		t.Fatalf("%d items, want %d merged lines", len(items), intakeLargeSKUs)
	}
	// LARGE-0000 comes with quantities 1 (even lines) twelve times: 12.
	if first := items[0].(map[string]any); first["sku"] != "LARGE-0000" || first["quantity"] != float64(12) {
		t.Errorf("first item %v", first)
	}
	if second := items[1].(map[string]any); second["sku"] != "LARGE-0001" || second["quantity"] != float64(24) {
		t.Errorf("second item %v", second)
	}
}

func TestIntakeSignature(t *testing.T) {
	srv := intakeServer(t)
	body := withID(t, intakeSample(t, "orders-create.json"), "3000001", nil)
	mac := hmac.New(sha256.New, []byte(intakeSecret))
	mac.Write(body)
	good := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	wantIntakeError(t, deliver(t, srv, intakeKeySig, body), 401, "invalid_signature")
	wantIntakeError(t, deliver(t, srv, intakeKeySig, body, "X-Shopify-Hmac-Sha256", "bm90IGl0"), 401, "invalid_signature")
	wantIntakeError(t, deliver(t, srv, intakeKeySig, append([]byte(" "), body...), "X-Shopify-Hmac-Sha256", good), 401, "invalid_signature")
	wantShipment(t, deliver(t, srv, intakeKeySig, body, "X-Shopify-Hmac-Sha256", good))
	// An organization without a secret needs no signature.
	wantShipment(t, deliver(t, srv, intakeKeyA, body))
}

func TestIntakeProductionEnvironment(t *testing.T) {
	intakeServer(t) // the fixture
	srv := startServer(t, baseEnv(testDSN, "ENVIRONMENT=production"))
	sample := intakeSample(t, "orders-create.json")
	wantIntakeError(t, deliver(t, srv, intakeKeyA, withID(t, sample, "4000001", nil)), 401, "invalid_api_key")
	tok := mintToken(t, "org_e2e_in_a", "shipments")
	for _, tt := range []struct {
		id       string
		set      map[string]any
		wantTest bool
	}{{"4000002", nil, false}, {"4000003", map[string]any{"test": true}, true}} {
		id := wantShipment(t, deliver(t, srv, intakeKeyLive, withID(t, sample, tt.id, tt.set)))
		var s map[string]any
		getJSON(t, srv, "/v0/shipments/"+id, tok, &s)
		if s["test"] != tt.wantTest {
			t.Errorf("order %s: test %v, want %v", tt.id, s["test"], tt.wantTest)
		}
	}
}

// A mapped member of the wrong JSON type is refused with 400, naming it, and
// never guessed: in production, "test": "true" read as false would ship a
// test order for real, "cancelled_at": false read as cancelled would drop
// a paid order. The refusal is a recorded attempt without a shipment, and
// the delivery with the member's right type is processed from scratch.
func TestIntakeWronglyTypedMembers(t *testing.T) {
	intakeServer(t) // the fixture
	srv := startServer(t, baseEnv(testDSN, "ENVIRONMENT=production"))
	tok := mintToken(t, "org_e2e_in_a", "shipments")
	sample := intakeSample(t, "orders-create.json")
	line := func(k string, v any) []any {
		return []any{map[string]any{"id": 14658123456011, "sku": "KEY-LTH-01", "quantity": 1, k: v}}
	}
	for _, tt := range []struct {
		id      string
		set     map[string]any
		message string
	}{
		{"6100001", map[string]any{"test": "true"}, "test: must be a JSON boolean"},
		{"6100002", map[string]any{"cancelled_at": false}, "cancelled_at: must be a JSON string"},
		{"6100003", map[string]any{"line_items": line("requires_shipping", "false")}, "line_items.requires_shipping: must be a JSON boolean"},
		{"6100004", map[string]any{"order_number": "abc"}, "order_number: must be a 64-bit integer"},
		{"6100005", map[string]any{"line_items": line("id", "14658123456011")}, "line_items.id: must be a 64-bit integer"},
		{"6100006", map[string]any{"shipping_address": "Berlin"}, "shipping_address: must be a JSON object"},
		{"6100007", map[string]any{"shipping_address": map[string]any{"name": "A", "zip": 10623}}, "shipping_address.zip: must be a JSON string"},
		{"6100008", map[string]any{"note": false}, "note: must be a JSON string"},
	} {
		t.Run(tt.message, func(t *testing.T) {
			a := wantIntakeError(t, deliver(t, srv, intakeKeyLive, withID(t, sample, tt.id, tt.set)), 400, "invalid_payload")
			if a.Message != tt.message {
				t.Errorf("message %q, want %q", a.Message, tt.message)
			}
			var rec map[string]any
			if r := getJSON(t, srv, "/v0/storefront/orders/"+tt.id, tok, &rec); r.Status != 200 {
				t.Fatalf("receipt: %d %s", r.Status, r.Body)
			}
			wantNumber := any("1042")
			if tt.id == "6100004" {
				wantNumber = nil
			}
			if rec["status"] != "failed" || rec["lastError"] != "invalid_payload" || rec["attempts"] != float64(1) ||
				rec["shipmentId"] != nil || rec["orderNumber"] != wantNumber {
				t.Errorf("receipt %v", rec)
			}
		})
	}
	id := wantShipment(t, deliver(t, srv, intakeKeyLive, withID(t, sample, "6100001", map[string]any{"test": true})))
	var s, rec map[string]any
	getJSON(t, srv, "/v0/shipments/"+id, tok, &s)
	getJSON(t, srv, "/v0/storefront/orders/6100001", tok, &rec)
	if s["test"] != true || rec["status"] != "succeeded" || rec["attempts"] != float64(2) || rec["shipmentId"] != id {
		t.Errorf("the corrected delivery: shipment test %v, receipt %v", s["test"], rec)
	}
}

// A receipt that has succeeded is final: a later delivery of the order
// that is refused is answered, and changes nothing in the receipt.
func TestIntakeSucceededReceiptIsFinal(t *testing.T) {
	srv := intakeServer(t)
	sample := intakeSample(t, "orders-create.json")
	id := wantShipment(t, deliver(t, srv, intakeKeyA, withID(t, sample, "6200001", nil)))
	before := receiptOf(t, srv, "6200001")
	for _, body := range [][]byte{
		withID(t, sample, "6200001", map[string]any{"test": "true"}),
		withID(t, sample, "6200001", map[string]any{"line_items": []any{map[string]any{"id": 1, "sku": "KEY-LTH-01", "quantity": 0}}}),
		[]byte(`{"id": 6200001}`),
	} {
		wantIntakeError(t, deliver(t, srv, intakeKeyA, body), 400, "invalid_payload")
	}
	if after := receiptOf(t, srv, "6200001"); !reflect.DeepEqual(after, before) {
		t.Errorf("refused deliveries changed a succeeded receipt:\n before %v\n after  %v", before, after)
	}
	again := deliver(t, srv, intakeKeyA, withID(t, sample, "6200001", nil))
	if strings.TrimSpace(string(again.Body)) != `{"success":true,"shipmentId":"`+id+`","duplicate":true}` {
		t.Fatalf("redelivery: %d %s", again.Status, again.Body)
	}
}

func TestIntakeReceiptEndpoint(t *testing.T) {
	srv := intakeServer(t)
	wantShipment(t, deliver(t, srv, intakeKeyA, withID(t, intakeSample(t, "orders-create.json"), "5000001", nil)))
	other := mintToken(t, "org_e2e_in_first", "shipments")
	for path, token := range map[string]string{
		"/v0/storefront/orders/5000002":              intakeTokenA, // unknown
		"/v0/storefront/orders/5000001":              other,        // another organization's
		"/v0/storefront/orders/abc":                  intakeTokenA,
		"/v0/storefront/orders/05000001":             intakeTokenA,
		"/v0/storefront/orders/-5000001":             intakeTokenA,
		"/v0/storefront/orders/99999999999999999999": intakeTokenA,
		"/v0/storefront/orders/'%20OR%201=1":         intakeTokenA,
	} {
		wantProblem(t, do(t, "GET", srv.URL+path, nil, "Authorization", "Bearer "+token), 404, "not_found")
	}
	wantProblem(t, do(t, "GET", srv.URL+"/v0/storefront/orders/5000001", nil), 401, "invalid_token")
	wantProblem(t, do(t, "GET", srv.URL+"/v0/storefront/orders/5000001", nil,
		"Authorization", "Bearer "+mintToken(t, "org_e2e_in_a", "inventory")), 403, "insufficient_scope")
	wantProblem(t, do(t, "GET", srv.URL+"/v0/storefront/orders/5000001", nil, "Authorization", "Bearer "+intakeKeyA), 401, "invalid_token")
}

func TestIntakeDatabaseDown(t *testing.T) {
	intakeServer(t)
	proxy := newTCPProxy(t, dbAddr(t))
	srv := startServer(t, baseEnv(proxy.dsn(t)))
	body := withID(t, intakeSample(t, "orders-create.json"), "6000001", nil)
	proxy.down()
	r := deliver(t, srv, intakeKeyA, body)
	wantIntakeError(t, r, 503, "unavailable")
	if r.Header.Get("Retry-After") == "" || strings.Contains(string(r.Body), "127.0.0.1") || strings.Contains(string(r.Body), "SELECT") {
		t.Fatalf("503 %v %s", r.Header, r.Body)
	}
	proxy.up()
	srv.waitFor(t, "/readyz", 200)
	wantShipment(t, deliver(t, srv, intakeKeyA, body))
	if strings.Contains(srv.Logs(), "SELECT") || strings.Contains(srv.Logs(), intakeKeyA) {
		t.Fatalf("a log line carries SQL or a key:\n%s", srv.Logs())
	}
}

// Values are not guessed either: the sample's bytes with one value changed
// (raw bytes, not re-encoded). A cancelled_at that is no timestamp, a mapped
// member given twice, a mapped string that is not UTF-8 are 400 naming the
// member, recorded as a failed attempt; a timestamp cancels; an unmapped
// member that is not UTF-8 is ignored.
func TestIntakeGuessesNoValue(t *testing.T) {
	srv := intakeServer(t)
	sample := intakeSample(t, "orders-create.json")
	edit := func(id string, pairs ...string) []byte {
		t.Helper()
		b := bytes.Replace(sample, []byte(`"id": 5726128734520,`), []byte(`"id": `+id+`,`), 1)
		for i := 0; i+1 < len(pairs); i += 2 {
			if !bytes.Contains(b, []byte(pairs[i])) {
				t.Fatalf("the sample has no %q", pairs[i])
			}
			b = bytes.Replace(b, []byte(pairs[i]), []byte(pairs[i+1]), 1)
		}
		return b
	}
	const null = `"cancelled_at": null`
	for _, tt := range []struct {
		name, id string
		body     []byte
		message  string
	}{
		{"cancelled_at empty", "6300001", edit("6300001", null, `"cancelled_at": ""`), "cancelled_at: must be null or an RFC 3339 timestamp"},
		{"cancelled_at false", "6300002", edit("6300002", null, `"cancelled_at": "false"`), "cancelled_at: must be null or an RFC 3339 timestamp"},
		{"cancelled_at null", "6300003", edit("6300003", null, `"cancelled_at": "null"`), "cancelled_at: must be null or an RFC 3339 timestamp"},
		{"line_items twice", "6300004", []byte(`{"id": 6300004, "line_items": [{"id": 1, "sku": "SOCK-MER-CH-4346", "quantity": 1, "requires_shipping": false}],
			"shipping_address": {"name": "Ada", "city": "Berlin"}, "line_items": [{"id": 2, "sku": "KEY-LTH-01", "quantity": 1}]}`),
			"line_items: occurs more than once"},
		{"sku twice in a line", "6300005", edit("6300005", `"sku": "SOCK-MER-CH-4346",`, `"sku": "SOCK-MER-CH-4346", "sku": "KEY-LTH-01",`),
			"line_items[0].sku: occurs more than once"},
		{"shipping_address twice", "6300006", edit("6300006", `"billing_address": {`, `"shipping_address": {"name": "X"}, "billing_address": {`),
			"shipping_address: occurs more than once"},
		{"sku not UTF-8", "6300007", edit("6300007", `"sku": "KEY-LTH-01 "`, "\"sku\": \"KEY-LTH-\xff1 \""), "line_items[1].sku: must be valid UTF-8"},
		{"shipping name in Latin-1", "6300008", edit("6300008", `"name": "Zoë Müller"`, "\"name\": \"Zo\xeb M\xfcller\""), "shipping_address.name: must be valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := wantIntakeError(t, deliver(t, srv, intakeKeyA, tt.body), 400, "invalid_payload")
			if a.Message != tt.message {
				t.Errorf("message %q, want %q", a.Message, tt.message)
			}
			rec := receiptOf(t, srv, tt.id)
			if rec["status"] != "failed" || rec["lastError"] != "invalid_payload" || rec["attempts"] != float64(1) || rec["shipmentId"] != nil {
				t.Errorf("receipt %v, want one failed attempt", rec)
			}
		})
	}
	// The delivery with the right bytes is processed from scratch.
	wantShipment(t, deliver(t, srv, intakeKeyA, edit("6300007")))
	if rec := receiptOf(t, srv, "6300007"); rec["status"] != "succeeded" || rec["attempts"] != float64(2) {
		t.Errorf("receipt after the corrected delivery %v", rec)
	}

	// A timestamp cancels the order.
	a := intakeJSON(t, deliver(t, srv, intakeKeyA, edit("6300009", null, `"cancelled_at": "2026-03-14T10:00:00-04:00"`)))
	if !*a.Success || a.Skipped != "order_cancelled" || a.ShipmentID != nil {
		t.Errorf("a cancelled order: %+v, want skipped order_cancelled", a)
	}
	// Members not mapped are ignored whatever their bytes; the mapped ones
	// are kept as sent.
	id := wantShipment(t, deliver(t, srv, intakeKeyA, edit("6300010", `"email": "zoe.mueller@example.de"`, "\"email\": \"zo\xeb@example.de\"",
		`"first_name": "Zoë"`, "\"first_name\": \"Zo\xeb\"", `"tags": `, "\"tags\": \"\xff\", \"tags\": ")))
	var s map[string]any
	getJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
	if s["shippingName"] != "Zoë Müller" || len(s["items"].([]any)) != 2 {
		t.Errorf("shipment %v", s)
	}
}
