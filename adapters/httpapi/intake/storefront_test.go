package intake_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	intakehttp "github.com/acme3pl/fulfillment/adapters/httpapi/intake"
	"github.com/acme3pl/fulfillment/adapters/httpapi/routetest"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

const intakeKey = "fk_test_0123456789abcdef0123456789abcdef"

// intakeKeys is an APIKeyVerifier of fixed keys.
type intakeKeys map[string]accessports.Principal

func (k intakeKeys) VerifyAPIKey(_ context.Context, key string) (accessports.Principal, error) {
	if key == "fk_test_down" {
		return accessports.Principal{}, fmt.Errorf("find api key: %w", domain.ErrUnavailable)
	}
	p, ok := k[key]
	if !ok {
		return accessports.Principal{}, fmt.Errorf("unknown: %w", accessports.ErrInvalidCredentials)
	}
	return p, nil
}

// intakeHarness is the storefront routes with the use cases stubbed: the
// intake answers what result/err say; refusals are kept. It is the
// signature verifier too.
type intakeHarness struct {
	router   *mux.Router
	result   intakeapp.StorefrontOrderResult
	err      error
	secret   string
	received []intakeapp.ReceiveStorefrontOrder
	refused  []intakeapp.RefuseStorefrontOrder
	metrics  *telemetry.Metrics
}

func newIntakeHarness() *intakeHarness {
	h := &intakeHarness{result: intakeapp.StorefrontOrderResult{ShipmentID: "shp_1"}, metrics: telemetry.NewMetrics()}
	app := &intakeapp.UseCases{}
	app.ReceiveStorefrontOrder = routetest.Recording(&h.received, func(intakeapp.ReceiveStorefrontOrder) (intakeapp.StorefrontOrderResult, error) {
		return h.result, h.err
	})
	app.RefuseStorefrontOrder = routetest.Recording(&h.refused, func(intakeapp.RefuseStorefrontOrder) (struct{}, error) { return struct{}{}, nil })
	keys := intakeKeys{
		intakeKey:                   {OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeInventory, domain.ScopeShipments}},
		"fk_test_shipments_only_00": {OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeShipments}},
		"fk_test_no_scopes_0000000": {OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeLocations}},
	}
	log := slog.New(slog.DiscardHandler)
	errs := httpapi.ErrorMapper{Log: log}
	s := intakehttp.NewStorefront(app, h, httpapi.Authenticator{Keys: keys, Errors: errs, Log: log}, errs, log, h.metrics)
	h.router = mux.NewRouter()
	s.Register(h.router)
	return h
}

// VerifyStorefrontSignature checks signatures against h.secret, when set.
func (h *intakeHarness) VerifyStorefrontSignature(_ context.Context, _ string, body []byte, signature string) error {
	if h.secret == "" {
		return nil
	}
	mac := hmac.New(sha256.New, []byte(h.secret))
	mac.Write(body)
	if signature != base64.StdEncoding.EncodeToString(mac.Sum(nil)) {
		return fmt.Errorf("mismatch: %w", accessports.ErrInvalidSignature)
	}
	return nil
}

func (h *intakeHarness) post(body []byte, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/v0/storefront/orders", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+intakeKey)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	w := httptest.NewRecorder()
	h.router.ServeHTTP(w, req)
	return w
}

// intakeBody is the intake's JSON body, every member it may carry.
type intakeBody struct {
	Success     *bool    `json:"success"`
	Error       string   `json:"error"`
	Message     string   `json:"message"`
	SKUs        []string `json:"skus"`
	LineItemIDs []string `json:"lineItemIds"`
	Missing     []string `json:"missing"`
	ShipmentID  *string  `json:"shipmentId"`
	Duplicate   *bool    `json:"duplicate"`
	Skipped     string   `json:"skipped"`
}

func decodeIntake(t testing.TB, w *httptest.ResponseRecorder) intakeBody {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json (status %d: %s)", ct, w.Code, w.Body)
	}
	var b intakeBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || b.Success == nil {
		t.Fatalf("body %s is not the intake's shape (%v)", w.Body, err)
	}
	return b
}

func wantIntakeError(t *testing.T, w *httptest.ResponseRecorder, status int, code string) intakeBody {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %s", w.Code, status, w.Body)
	}
	b := decodeIntake(t, w)
	if *b.Success || b.Error != code || b.Message == "" {
		t.Fatalf("body %s, want error %s with a message", w.Body, code)
	}
	return b
}

func readSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStorefrontChecksRunInOrder(t *testing.T) {
	huge := bytes.Repeat([]byte(" "), intakehttp.StorefrontBodyLimit+1)
	tests := []struct {
		name    string
		body    []byte
		headers []string
		status  int
		code    string
	}{
		{"no key beats everything", huge, []string{"Authorization", "", "Content-Type", "text/plain"}, 401, "invalid_api_key"},
		{"basic scheme", []byte(`{}`), []string{"Authorization", "Basic " + intakeKey}, 401, "invalid_api_key"},
		{"unknown key", []byte(`{}`), []string{"Authorization", "Bearer fk_test_unknown"}, 401, "invalid_api_key"},
		{"key lookup down", []byte(`{}`), []string{"Authorization", "Bearer fk_test_down"}, 503, "unavailable"},
		{"scope", huge, []string{"Authorization", "Bearer fk_test_shipments_only_00"}, 403, "insufficient_scope"},
		{"size beats media type", huge, []string{"Content-Type", "text/plain"}, 413, "payload_too_large"},
		{"media type beats JSON", []byte(`not json`), []string{"Content-Type", "text/plain"}, 415, "unsupported_media_type"},
		{"no media type", []byte(`{"id":1}`), []string{"Content-Type", ""}, 415, "unsupported_media_type"},
		{"form", []byte(`{"id":1}`), []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"not JSON", []byte(`{"id":`), nil, 400, "invalid_payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newIntakeHarness()
			w := h.post(tt.body, tt.headers...)
			wantIntakeError(t, w, tt.status, tt.code)
			if tt.status == 503 && w.Header().Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
		})
	}
}

func TestStorefrontInsufficientScopeListsWhatIsMissing(t *testing.T) {
	h := newIntakeHarness()
	for key, want := range map[string][]string{
		"fk_test_shipments_only_00": {"inventory"},
		"fk_test_no_scopes_0000000": {"shipments", "inventory"},
	} {
		b := wantIntakeError(t, h.post([]byte(`{}`), "Authorization", "Bearer "+key), 403, "insufficient_scope")
		if !reflect.DeepEqual(b.Missing, want) {
			t.Errorf("%s: missing %v, want %v", key, b.Missing, want)
		}
	}
}

func TestStorefrontMediaTypeParametersAreAllowed(t *testing.T) {
	h := newIntakeHarness()
	for _, ct := range []string{"application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"} {
		if w := h.post(readSample(t, "orders-create.json"), "Content-Type", ct); w.Code != 200 {
			t.Errorf("%q: status %d: %s", ct, w.Code, w.Body)
		}
	}
}

func TestStorefrontBodyOverLimitWithoutContentLength(t *testing.T) {
	h := newIntakeHarness()
	body := bytes.Repeat([]byte(" "), intakehttp.StorefrontBodyLimit+1)
	req := httptest.NewRequest(http.MethodPost, "/v0/storefront/orders", struct{ *bytes.Reader }{bytes.NewReader(body)})
	req.ContentLength = -1 // chunked: only reading finds out
	req.Header.Set("Authorization", "Bearer "+intakeKey)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.router.ServeHTTP(w, req)
	wantIntakeError(t, w, 413, "payload_too_large")
	// Exactly the limit is accepted (and then refused as JSON).
	wantIntakeError(t, h.post(bytes.Repeat([]byte(" "), intakehttp.StorefrontBodyLimit)), 400, "invalid_payload")
}

func TestStorefrontSignature(t *testing.T) {
	h := newIntakeHarness()
	h.secret = "0123456789abcdef-secret"
	body := readSample(t, "orders-create.json")
	mac := hmac.New(sha256.New, []byte(h.secret))
	mac.Write(body)
	good := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if w := h.post(body, "X-Shopify-Hmac-Sha256", good); w.Code != 200 {
		t.Fatalf("signed: %d %s", w.Code, w.Body)
	}
	wantIntakeError(t, h.post(body), 401, "invalid_signature")
	wantIntakeError(t, h.post(append(body, ' '), "X-Shopify-Hmac-Sha256", good), 401, "invalid_signature")
	if len(h.received) != 1 {
		t.Errorf("%d deliveries reached the use case, want only the signed one", len(h.received))
	}
}

func TestStorefrontAnswers(t *testing.T) {
	shp := "shp_1"
	tests := []struct {
		name     string
		result   intakeapp.StorefrontOrderResult
		err      error
		status   int
		wantBody string
	}{
		{"new", intakeapp.StorefrontOrderResult{ShipmentID: shp}, nil, 200, `{"success":true,"shipmentId":"shp_1"}`},
		{"duplicate", intakeapp.StorefrontOrderResult{ShipmentID: shp, Duplicate: true}, nil, 200,
			`{"success":true,"shipmentId":"shp_1","duplicate":true}`},
		{"skipped", intakeapp.StorefrontOrderResult{Skipped: intake.SkipOrderCancelled}, nil, 200,
			`{"success":true,"shipmentId":null,"skipped":"order_cancelled"}`},
		{"unknown skus", intakeapp.StorefrontOrderResult{}, &domain.UnknownSKUsError{SKUs: []string{"B", "A"}}, 422,
			`{"success":false,"error":"unknown_skus","message":"these SKUs are not in the organization's inventory","skus":["B","A"]}`},
		{"missing sku", intakeapp.StorefrontOrderResult{}, &domain.MissingSKUError{LineItemIDs: []int64{9223372036854775807}}, 422,
			`{"success":false,"error":"missing_sku","message":"these line items require shipping but have no SKU","lineItemIds":["9223372036854775807"]}`},
		{"no shipping address", intakeapp.StorefrontOrderResult{}, domain.ErrMissingShippingAddress, 422,
			`{"success":false,"error":"missing_shipping_address","message":"the order has no shipping_address object"}`},
		{"no warehouse", intakeapp.StorefrontOrderResult{}, domain.ErrNoWarehouse, 422,
			`{"success":false,"error":"no_warehouse","message":"the organization has no active warehouse"}`},
		{"database down", intakeapp.StorefrontOrderResult{}, fmt.Errorf("claim: %w", domain.ErrUnavailable), 503,
			`{"success":false,"error":"unavailable","message":"the database cannot be reached; retry later"}`},
		{"bug", intakeapp.StorefrontOrderResult{}, errors.New(`pq: syntax error at "SELECT secret FROM"`), 500,
			`{"success":false,"error":"internal","message":"an internal error occurred; quote the trace ID to support"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newIntakeHarness()
			h.result, h.err = tt.result, tt.err
			w := h.post(readSample(t, "orders-create.json"))
			if w.Code != tt.status || strings.TrimSpace(w.Body.String()) != tt.wantBody {
				t.Fatalf("%d %s\nwant %d %s", w.Code, w.Body, tt.status, tt.wantBody)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

func TestStorefrontPassesOrganizationAndOrder(t *testing.T) {
	h := newIntakeHarness()
	if w := h.post(readSample(t, "orders-create.json")); w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if len(h.received) != 1 || h.received[0].OrganizationID != "org_a" || h.received[0].Order.ID != 5726128734520 {
		t.Fatalf("received %+v", h.received)
	}
}

// The decoder reads an order of the route's body limit.
func TestDecodeStorefrontOrderLargeOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":5726128734520,"line_items":[`)
	const n = 20000
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"sku":"SKU-%d","quantity":%d,"requires_shipping":true,"title":"%s"}`, 14658123456011+i, i%500, 1+i%3, strings.Repeat("x", 150))
	}
	b.WriteString(`],"shipping_address":{"name":"A"}}`)
	if b.Len() > intakehttp.StorefrontBodyLimit || b.Len() < 4<<20 {
		t.Fatalf("body of %d bytes, want between 4 MiB and the limit", b.Len())
	}
	o, err := intake.DecodeStorefrontOrder([]byte(b.String()))
	if err != nil || len(o.Lines) != n || o.Lines[n-1].SKU != fmt.Sprintf("SKU-%d", (n-1)%500) {
		t.Fatalf("%d lines, %v", len(o.Lines), err)
	}
}

// FuzzDecodeStorefrontOrder feeds arbitrary bodies through the intake's
// HTTP handler: whatever arrives is answered 200 or 4xx in the intake's
// shape — never 5xx, never a panic — and what the decoder accepts holds its
// invariants.
func FuzzDecodeStorefrontOrder(f *testing.F) {
	for _, name := range []string{"orders-create.json", "orders-create-pickup.json"} {
		f.Add(readSample(f, name))
	}
	for _, s := range []string{
		`{"id":9007199254740993,"line_items":[{"id":1,"sku":" A ","quantity":2,"requires_shipping":false}],"shipping_address":null}`,
		`{"id":1,"line_items":[{"quantity":1e400}]}`, `{"id":-0}`, `{"id":1,"line_items":[{"quantity":-1}]}`,
		`{"id":1,"note":"\u0000","line_items":[]}`, `{"id":1,"line_items":[null]}`, `null`, `{}`, `{"id":{}}`,
		`{"id":1,"shipping_address":[],"line_items":[{"sku":"\ud800","quantity":1}]}`, "\xff\xfe{", `{"id":1,"test":true,"cancelled_at":0,"line_items":[1]}`,
		// Numbers at the edges of int64 and of the quantity bound.
		`{"id":9223372036854775807,"line_items":[{"id":9223372036854775807,"sku":"A","quantity":9223372036854775807}]}`,
		`{"id":9223372036854775808,"line_items":[{"sku":"A","quantity":1}]}`,
		`{"id":1,"line_items":[{"sku":"A","quantity":9223372036854775808}]}`,
		`{"id":1,"line_items":[{"sku":"A","quantity":-9223372036854775808}]}`,
		`{"id":1,"line_items":[{"sku":"A","quantity":4611686018427387904},{"sku":"A","quantity":4611686018427387904}]}`,
		`{"id":1,"line_items":[{"sku":"A","quantity":1000000000},{"sku":"A","quantity":1000000001},{"sku":"A","quantity":0}]}`,
		`{"id":1,"line_items":[{"sku":"A","quantity":1.0}]}`, `{"id":1,"line_items":[{"sku":"A","quantity":"1"}]}`,
	} {
		f.Add([]byte(s))
	}
	h := newIntakeHarness()
	f.Fuzz(func(t *testing.T, body []byte) {
		h.received, h.refused = nil, nil
		o, err := intake.DecodeStorefrontOrder(body)
		if err != nil {
			var ve *domain.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("refusal %v is not a validation error", err)
			}
		} else {
			if o.ID <= 0 {
				t.Fatalf("accepted id %d", o.ID)
			}
			quantities := rawQuantities(body)
			for i, l := range o.Lines {
				if strings.IndexByte(l.SKU, 0) >= 0 || i >= len(quantities) || quantities[i] != strconv.FormatInt(l.Quantity, 10) {
					t.Fatalf("accepted line %d: %+v (the payload says %v)", i, l, quantities)
				}
			}
		}
		w := h.post(body)
		if w.Code != http.StatusOK && (w.Code < 400 || w.Code > 499) {
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
		b := decodeIntake(t, w)
		if *b.Success != (w.Code == http.StatusOK) {
			t.Fatalf("success %v with status %d", *b.Success, w.Code)
		}
		if err == nil && w.Code != http.StatusOK {
			t.Fatalf("accepted by the decoder but answered %d", w.Code)
		}
	})
}

// rawQuantities returns the quantities of a payload's line items as the
// JSON text wrote them, so that a decoded quantity can be checked digit for
// digit (never through float64).
func rawQuantities(body []byte) []string {
	var p struct {
		LineItems []struct {
			Quantity json.Number `json:"quantity"`
		} `json:"line_items"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&p) != nil {
		return nil
	}
	out := make([]string, len(p.LineItems))
	for i, l := range p.LineItems {
		out[i] = l.Quantity.String()
	}
	return out
}
