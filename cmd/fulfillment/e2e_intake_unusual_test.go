package main

// End-to-end tests of the storefront order intake, continued: warehouse
// choice, skipped orders, odd payloads, signatures, the production
// environment, receipts and a database that is down.

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

func TestIntakeWarehouseChoice(t *testing.T) {
	srv := intakeServer(t)
	order := []byte(`{"id": 2000003, "line_items": [{"id": 1, "sku": "KEY-LTH-01", "quantity": 1}], "shipping_address": {"name": "A"}}`)
	wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyNoWH, order), 422, "no_warehouse")
	for key, want := range map[string]struct{ org, wh string }{
		intakeKeyFirst: {"org_e2e_in_first", "wh_e2e_in_a"}, // no default: Alpha before Zulu
		intakeKeyInact: {"org_e2e_in_inact", "wh_e2e_in_z"}, // inactive default: the first active
	} {
		id := e2e.WantShipment(t, e2e.Deliver(t, srv, key, order))
		var s map[string]any
		if r := e2e.GetJSON(t, srv, "/v0/shipments/"+id, e2e.MintToken(t, want.org, "shipments"), &s); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if wh := s["warehouse"].(map[string]any)["id"]; wh != want.wh {
			t.Errorf("%s: warehouse %v, want %s", want.org, wh, want.wh)
		}
	}
}

func TestIntakeSkippedOrders(t *testing.T) {
	srv := intakeServer(t)
	sample := e2e.IntakeSample(t, "orders-create.json")
	for _, tt := range []struct {
		id, skipped string
		body        []byte
	}{
		{"2000004", "order_cancelled", e2e.WithID(t, sample, "2000004", map[string]any{"cancelled_at": "2025-03-14T12:00:00+01:00"})},
		{"2000005", "no_shippable_items", []byte(`{"id": 2000005, "line_items": [{"id": 1, "sku": "", "quantity": 1, "requires_shipping": false}]}`)},
	} {
		for i, wantDup := range []bool{false, true} {
			r := e2e.Deliver(t, srv, intakeKeyA, tt.body)
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
	id := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, body))
	var s map[string]any
	e2e.GetJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
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
	id := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, []byte(b.String())))
	var s map[string]any
	e2e.GetJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
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
	body := e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), "3000001", nil)
	mac := hmac.New(sha256.New, []byte(intakeSecret))
	mac.Write(body)
	good := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	wantIntakeError(t, e2e.Deliver(t, srv, intakeKeySig, body), 401, "invalid_signature")
	wantIntakeError(t, e2e.Deliver(t, srv, intakeKeySig, body, "X-Shopify-Hmac-Sha256", "bm90IGl0"), 401, "invalid_signature")
	wantIntakeError(t, e2e.Deliver(t, srv, intakeKeySig, append([]byte(" "), body...), "X-Shopify-Hmac-Sha256", good), 401, "invalid_signature")
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeySig, body, "X-Shopify-Hmac-Sha256", good))
	// An organization without a secret needs no signature.
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, body))
}

func TestIntakeProductionEnvironment(t *testing.T) {
	intakeServer(t) // the fixture
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "ENVIRONMENT=production"))
	sample := e2e.IntakeSample(t, "orders-create.json")
	wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, sample, "4000001", nil)), 401, "invalid_api_key")
	tok := e2e.MintToken(t, "org_e2e_in_a", "shipments")
	for _, tt := range []struct {
		id       string
		set      map[string]any
		wantTest bool
	}{{"4000002", nil, false}, {"4000003", map[string]any{"test": true}, true}} {
		id := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyLive, e2e.WithID(t, sample, tt.id, tt.set)))
		var s map[string]any
		e2e.GetJSON(t, srv, "/v0/shipments/"+id, tok, &s)
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
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "ENVIRONMENT=production"))
	tok := e2e.MintToken(t, "org_e2e_in_a", "shipments")
	sample := e2e.IntakeSample(t, "orders-create.json")
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
			a := wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyLive, e2e.WithID(t, sample, tt.id, tt.set)), 400, "invalid_payload")
			if a.Message != tt.message {
				t.Errorf("message %q, want %q", a.Message, tt.message)
			}
			var rec map[string]any
			if r := e2e.GetJSON(t, srv, "/v0/storefront/orders/"+tt.id, tok, &rec); r.Status != 200 {
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
	id := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyLive, e2e.WithID(t, sample, "6100001", map[string]any{"test": true})))
	var s, rec map[string]any
	e2e.GetJSON(t, srv, "/v0/shipments/"+id, tok, &s)
	e2e.GetJSON(t, srv, "/v0/storefront/orders/6100001", tok, &rec)
	if s["test"] != true || rec["status"] != "succeeded" || rec["attempts"] != float64(2) || rec["shipmentId"] != id {
		t.Errorf("the corrected delivery: shipment test %v, receipt %v", s["test"], rec)
	}
}

// A receipt that has succeeded is final: a later delivery of the order
// that is refused is answered, and changes nothing in the receipt.
func TestIntakeSucceededReceiptIsFinal(t *testing.T) {
	srv := intakeServer(t)
	sample := e2e.IntakeSample(t, "orders-create.json")
	id := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, sample, "6200001", nil)))
	before := receiptOf(t, srv, "6200001")
	for _, body := range [][]byte{
		e2e.WithID(t, sample, "6200001", map[string]any{"test": "true"}),
		e2e.WithID(t, sample, "6200001", map[string]any{"line_items": []any{map[string]any{"id": 1, "sku": "KEY-LTH-01", "quantity": 0}}}),
		[]byte(`{"id": 6200001}`),
	} {
		wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, body), 400, "invalid_payload")
	}
	if after := receiptOf(t, srv, "6200001"); !reflect.DeepEqual(after, before) {
		t.Errorf("refused deliveries changed a succeeded receipt:\n before %v\n after  %v", before, after)
	}
	again := e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, sample, "6200001", nil))
	if strings.TrimSpace(string(again.Body)) != `{"success":true,"shipmentId":"`+id+`","duplicate":true}` {
		t.Fatalf("redelivery: %d %s", again.Status, again.Body)
	}
}

func TestIntakeReceiptEndpoint(t *testing.T) {
	srv := intakeServer(t)
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), "5000001", nil)))
	other := e2e.MintToken(t, "org_e2e_in_first", "shipments")
	for path, token := range map[string]string{
		"/v0/storefront/orders/5000002":              intakeTokenA, // unknown
		"/v0/storefront/orders/5000001":              other,        // another organization's
		"/v0/storefront/orders/abc":                  intakeTokenA,
		"/v0/storefront/orders/05000001":             intakeTokenA,
		"/v0/storefront/orders/-5000001":             intakeTokenA,
		"/v0/storefront/orders/99999999999999999999": intakeTokenA,
		"/v0/storefront/orders/'%20OR%201=1":         intakeTokenA,
	} {
		e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+path, nil, "Authorization", "Bearer "+token), 404, "not_found")
	}
	e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/storefront/orders/5000001", nil), 401, "invalid_token")
	e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/storefront/orders/5000001", nil,
		"Authorization", "Bearer "+e2e.MintToken(t, "org_e2e_in_a", "inventory")), 403, "insufficient_scope")
	e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/storefront/orders/5000001", nil, "Authorization", "Bearer "+intakeKeyA), 401, "invalid_token")
}

func TestIntakeDatabaseDown(t *testing.T) {
	intakeServer(t)
	proxy := newTCPProxy(t, dbAddr(t))
	srv := e2e.StartServer(t, e2e.BaseEnv(proxy.dsn(t)))
	body := e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), "6000001", nil)
	proxy.down()
	r := e2e.Deliver(t, srv, intakeKeyA, body)
	wantIntakeError(t, r, 503, "unavailable")
	if r.Header.Get("Retry-After") == "" || strings.Contains(string(r.Body), "127.0.0.1") || strings.Contains(string(r.Body), "SELECT") {
		t.Fatalf("503 %v %s", r.Header, r.Body)
	}
	proxy.up()
	srv.WaitFor(t, "/readyz", 200)
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, body))
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
	sample := e2e.IntakeSample(t, "orders-create.json")
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
			a := wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, tt.body), 400, "invalid_payload")
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
	e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, edit("6300007")))
	if rec := receiptOf(t, srv, "6300007"); rec["status"] != "succeeded" || rec["attempts"] != float64(2) {
		t.Errorf("receipt after the corrected delivery %v", rec)
	}

	// A timestamp cancels the order.
	a := e2e.IntakeJSON(t, e2e.Deliver(t, srv, intakeKeyA, edit("6300009", null, `"cancelled_at": "2026-03-14T10:00:00-04:00"`)))
	if !*a.Success || a.Skipped != "order_cancelled" || a.ShipmentID != nil {
		t.Errorf("a cancelled order: %+v, want skipped order_cancelled", a)
	}
	// Members not mapped are ignored whatever their bytes; the mapped ones
	// are kept as sent.
	id := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, edit("6300010", `"email": "zoe.mueller@example.de"`, "\"email\": \"zo\xeb@example.de\"",
		`"first_name": "Zoë"`, "\"first_name\": \"Zo\xeb\"", `"tags": `, "\"tags\": \"\xff\", \"tags\": ")))
	var s map[string]any
	e2e.GetJSON(t, srv, "/v0/shipments/"+id, intakeTokenA, &s)
	if s["shippingName"] != "Zoë Müller" || len(s["items"].([]any)) != 2 {
		t.Errorf("shipment %v", s)
	}
}
