package main

// End-to-end tests of the storefront order intake: the real
// binary, the real database, the samples of docs/samples and payloads made
// here.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
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
			e2e.FixtureOrg("org_e2e_in_first", "Intake First"),
			map[string]any{"id": "org_e2e_in_inact", "name": "Intake Inactive", "defaultWarehouseId": "wh_e2e_in_off"},
			e2e.FixtureOrg("org_e2e_in_nowh", "Intake No Warehouse"),
			e2e.FixtureOrg("org_e2e_in_sig", "Intake Signed"),
		},
		"warehouses": []any{
			e2e.FixtureWarehouse("wh_e2e_in_a", "Alpha", true, "org_e2e_in_a", "org_e2e_in_first", "org_e2e_in_sig"),
			e2e.FixtureWarehouse("wh_e2e_in_b", "Bravo", true, "org_e2e_in_a"),
			e2e.FixtureWarehouse("wh_e2e_in_z", "Zulu", true, "org_e2e_in_first", "org_e2e_in_inact"),
			e2e.FixtureWarehouse("wh_e2e_in_off", "Aardvark", false, "org_e2e_in_inact"),
		},
		"products":       products,
		"apiKeys":        keys,
		"webhookSecrets": []any{map[string]any{"organizationId": "org_e2e_in_sig", "secret": intakeSecret}},
	}
}

var (
	intakeTokenA string // an access token of org_e2e_in_a with scope shipments
	seedIntake   = e2e.SeedOnce("intake", func(t *testing.T) {
		e2e.SeedFixture(t, e2e.TestDSN, intakeFixture())
		intakeTokenA = e2e.MintToken(t, "org_e2e_in_a", "shipments")
	})
)

// intakeServer seeds the fixture once and starts a sandbox server for t.
func intakeServer(t *testing.T) *e2e.Server {
	t.Helper()
	seedIntake(t)
	return e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
}

// deliverUntilAnswered delivers body again while it is answered 503
// unavailable with Retry-After (shed, or the database away), as a
// storefront retries, for at most a minute; it returns the last answer.
func deliverUntilAnswered(t *testing.T, srv *e2e.Server, key string, body []byte) e2e.Response {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := e2e.Deliver(t, srv, key, body)
		if r.Status != 503 || time.Now().After(deadline) {
			return r
		}
		if a := e2e.IntakeJSON(t, r); a.Error != "unavailable" || r.Header.Get("Retry-After") == "" {
			t.Errorf("503 %s (Retry-After %q), want unavailable with Retry-After", r.Body, r.Header.Get("Retry-After"))
			return r
		}
		time.Sleep(time.Duration(50+rand.IntN(200)) * time.Millisecond) // sooner than Retry-After: the test has no four hours
	}
}

func wantIntakeError(t *testing.T, r e2e.Response, status int, code string) e2e.IntakeAnswer {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	a := e2e.IntakeJSON(t, r)
	if *a.Success || a.Error != code {
		t.Fatalf("answer %s, want error %s", r.Body, code)
	}
	return a
}

// receiptOf reads the order receipt as org_e2e_in_a.
func receiptOf(t *testing.T, srv *e2e.Server, orderID string) map[string]any {
	t.Helper()
	var m map[string]any
	if r := e2e.GetJSON(t, srv, "/v0/storefront/orders/"+orderID, intakeTokenA, &m); r.Status != 200 {
		t.Fatalf("receipt of %s: %d %s", orderID, r.Status, r.Body)
	}
	return m
}

var intakeTimestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestIntakeSampleOrder(t *testing.T) {
	srv := intakeServer(t)
	first := e2e.Deliver(t, srv, intakeKeyA, e2e.IntakeSample(t, "orders-create.json"))
	id := e2e.WantShipment(t, first)
	if body := strings.TrimSpace(string(first.Body)); body != `{"success":true,"shipmentId":"`+id+`"}` {
		t.Errorf("body %s, want exactly success and shipmentId", body)
	}

	var s map[string]any
	if r := e2e.GetJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s); r.Status != 200 {
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
	again := e2e.Deliver(t, srv, intakeKeyA, e2e.IntakeSample(t, "orders-create.json"))
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
	r := e2e.Deliver(t, srv, intakeKeyA, e2e.IntakeSample(t, "orders-create-pickup.json"))
	wantIntakeError(t, r, 422, "missing_shipping_address")
	rec := receiptOf(t, srv, "5726128734599")
	if rec["status"] != "failed" || rec["lastError"] != "missing_shipping_address" || rec["attempts"] != float64(1) ||
		rec["shipmentId"] != nil || rec["traceId"] != r.Header.Get("X-Trace-Id") {
		t.Fatalf("receipt %v", rec)
	}
}

func TestIntakeAuthentication(t *testing.T) {
	srv := intakeServer(t)
	body := e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), "1000001", nil)
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
			r := e2e.Do(t, "POST", srv.URL+"/v0/storefront/orders", body, headers...)
			a := wantIntakeError(t, r, 401, "invalid_api_key")
			if strings.Contains(string(r.Body), "fk_") {
				t.Errorf("the answer repeats the key: %s", r.Body)
			}
			_ = a
		})
	}
	a := wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyShip, body), 403, "insufficient_scope")
	if !reflect.DeepEqual(a.Missing, []string{"inventory"}) {
		t.Errorf("missing %v, want [inventory]", a.Missing)
	}
	if r := e2e.GetJSON(t, srv, "/v0/storefront/orders/1000001", intakeTokenA, nil); r.Status != 404 {
		t.Errorf("a refused key left a receipt: %d %s", r.Status, r.Body)
	}
}

func TestIntakeChecksAndPayloadErrors(t *testing.T) {
	srv := intakeServer(t)
	sample := e2e.IntakeSample(t, "orders-create.json")
	huge := append(bytes.Repeat([]byte(" "), 5<<20), sample...)
	t.Run("key before size", func(t *testing.T) {
		wantIntakeError(t, e2e.Deliver(t, srv, "fk_test_nope", huge), 401, "invalid_api_key")
	})
	t.Run("size before media type", func(t *testing.T) {
		wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, huge, "Content-Type", "text/plain"), 413, "payload_too_large")
	})
	t.Run("media type before JSON", func(t *testing.T) {
		wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, []byte("nope"), "Content-Type", "text/plain"), 415, "unsupported_media_type")
	})
	t.Run("charset allowed", func(t *testing.T) {
		e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, sample, "1000002", nil), "Content-Type", "application/json; charset=utf-8"))
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
			a := wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, []byte(body)), 400, "invalid_payload")
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
	if r := e2e.Do(t, "PUT", srv.URL+"/v0/storefront/orders", nil, "Authorization", "Bearer "+intakeKeyA); r.Status != 405 {
		t.Errorf("PUT of the webhook: %d", r.Status)
	}
	if r := e2e.Do(t, "GET", srv.URL+"/v0/storefront/orders", nil, "Authorization", "Bearer "+intakeKeyA); r.Status != 401 {
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
	a := wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, body), 422, "unknown_skus")
	if !reflect.DeepEqual(a.SKUs, []string{"NEW-SKU-1", "NEW-SKU-2", "sock-mer-ch-4346"}) {
		t.Fatalf("skus %v: want every unknown SKU once, trimmed, in payload order, case-sensitive", a.SKUs)
	}
	rec := receiptOf(t, srv, "2000001")
	if rec["status"] != "failed" || rec["lastError"] != "unknown_skus" || rec["attempts"] != float64(1) || rec["shipmentId"] != nil {
		t.Fatalf("receipt after the refusal: %v", rec)
	}
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{"products": []any{
		map[string]any{"id": "prod_in_new_1", "organizationId": "org_e2e_in_a", "sku": "NEW-SKU-1", "name": "N1"},
		map[string]any{"id": "prod_in_new_2", "organizationId": "org_e2e_in_a", "sku": "NEW-SKU-2", "name": "N2"},
		map[string]any{"id": "prod_in_new_3", "organizationId": "org_e2e_in_a", "sku": "sock-mer-ch-4346", "name": "lower"},
	}})
	retry := e2e.Deliver(t, srv, intakeKeyA, body)
	id := e2e.WantShipment(t, retry)
	rec = receiptOf(t, srv, "2000001")
	if rec["status"] != "succeeded" || rec["attempts"] != float64(2) || rec["shipmentId"] != id ||
		rec["lastError"] != "unknown_skus" || rec["traceId"] != retry.Header.Get("X-Trace-Id") {
		t.Fatalf("receipt after the retry: %v", rec)
	}
	var s map[string]any
	e2e.GetJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
	items, _ := s["items"].([]any)
	if len(items) != 4 || items[0].(map[string]any)["quantity"] != float64(3) || s["shippingCountry"] != "FR" {
		t.Fatalf("shipment %v", s)
	}
}

func TestIntakeMissingSKU(t *testing.T) {
	srv := intakeServer(t)
	a := wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, []byte(`{"id": 2000002, "line_items": [
		{"id": 14658123456011, "sku": "KEY-LTH-01", "quantity": 1},
		{"id": 9223372036854775807, "sku": "  ", "quantity": 1},
		{"id": 14658123456013, "sku": null, "quantity": 1, "requires_shipping": false},
		{"id": 9007199254740993, "sku": null, "quantity": 1}],
		"shipping_address": {"name": "A"}}`)), 422, "missing_sku")
	if !reflect.DeepEqual(a.LineItemIDs, []string{"9223372036854775807", "9007199254740993"}) {
		t.Fatalf("lineItemIds %v", a.LineItemIDs)
	}
}
