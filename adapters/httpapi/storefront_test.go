package httpapi_test

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
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

const intakeKey = "fk_test_0123456789abcdef0123456789abcdef"

// intakeKeys is an APIKeyVerifier of fixed keys.
type intakeKeys map[string]ports.Principal

func (k intakeKeys) VerifyAPIKey(_ context.Context, key string) (ports.Principal, error) {
	if key == "fk_test_down" {
		return ports.Principal{}, fmt.Errorf("find api key: %w", domain.ErrUnavailable)
	}
	p, ok := k[key]
	if !ok {
		return ports.Principal{}, fmt.Errorf("unknown: %w", ports.ErrInvalidCredentials)
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
	app.ReceiveStorefrontOrder = application.HandlerFunc[intakeapp.ReceiveStorefrontOrder, intakeapp.StorefrontOrderResult](
		func(_ context.Context, c intakeapp.ReceiveStorefrontOrder) (intakeapp.StorefrontOrderResult, error) {
			h.received = append(h.received, c)
			return h.result, h.err
		})
	app.RefuseStorefrontOrder = application.HandlerFunc[intakeapp.RefuseStorefrontOrder, struct{}](
		func(_ context.Context, c intakeapp.RefuseStorefrontOrder) (struct{}, error) {
			h.refused = append(h.refused, c)
			return struct{}{}, nil
		})
	keys := intakeKeys{
		intakeKey:                   {OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeInventory, domain.ScopeShipments}},
		"fk_test_shipments_only_00": {OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeShipments}},
		"fk_test_no_scopes_0000000": {OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeLocations}},
	}
	log := slog.New(slog.DiscardHandler)
	errs := httpapi.ErrorMapper{Log: log}
	s := httpapi.NewStorefront(app, h, httpapi.Authenticator{Keys: keys, Errors: errs, Log: log}, errs, log, h.metrics)
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
		return fmt.Errorf("mismatch: %w", ports.ErrInvalidSignature)
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
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStorefrontChecksRunInOrder(t *testing.T) {
	huge := bytes.Repeat([]byte(" "), httpapi.StorefrontBodyLimit+1)
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
	body := bytes.Repeat([]byte(" "), httpapi.StorefrontBodyLimit+1)
	req := httptest.NewRequest(http.MethodPost, "/v0/storefront/orders", struct{ *bytes.Reader }{bytes.NewReader(body)})
	req.ContentLength = -1 // chunked: only reading finds out
	req.Header.Set("Authorization", "Bearer "+intakeKey)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.router.ServeHTTP(w, req)
	wantIntakeError(t, w, 413, "payload_too_large")
	// Exactly the limit is accepted (and then refused as JSON).
	wantIntakeError(t, h.post(bytes.Repeat([]byte(" "), httpapi.StorefrontBodyLimit)), 400, "invalid_payload")
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

func TestDecodeStorefrontOrderSample(t *testing.T) {
	o, err := httpapi.DecodeStorefrontOrder(readSample(t, "orders-create.json"))
	if err != nil {
		t.Fatal(err)
	}
	num := int64(1042)
	want := intake.StorefrontOrder{
		ID: 5726128734520, OrderNumber: &num, Note: "Bitte beim Nachbarn (Hinterhaus, 2. OG) abgeben 🙏 — danke!",
		ShippingAddress: &shipping.Address{Name: "Zoë Müller", Company: "Bäckerei Größe GmbH",
			Address1: "Straße des 17. Juni 135", Address2: "Hinterhaus, 2. OG, c/o Ünal", City: "Berlin", State: "",
			Zip: "10623", Country: "DE", Phone: "+49 30 1234567"},
		Lines: []intake.StorefrontLine{
			{ID: 14658123456011, SKU: "SOCK-MER-CH-4346", Quantity: 2, RequiresShipping: true},
			{ID: 14658123456012, SKU: "KEY-LTH-01 ", Quantity: 1, RequiresShipping: true},
			{ID: 14658123456013, SKU: "", Quantity: 1, RequiresShipping: false},
		},
	}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("decoded\n %+v\nwant\n %+v", o, want)
	}
	pickup, err := httpapi.DecodeStorefrontOrder(readSample(t, "orders-create-pickup.json"))
	if err != nil || pickup.ShippingAddress != nil || pickup.ID != 5726128734599 || len(pickup.Lines) != 1 {
		t.Fatalf("pickup %+v, %v; want no shipping address", pickup, err)
	}
}

func TestDecodeStorefrontOrder(t *testing.T) {
	const lines = `"line_items":[{"id":1,"sku":"A","quantity":1}]`
	tests := []struct {
		name    string
		body    string
		wantID  int64 // the id the refusal still carries (0: none)
		wantErr string
		check   func(t *testing.T, o intake.StorefrontOrder)
	}{
		{name: "id above 2^53 exactly", body: `{"id":9007199254740993,"order_number":9007199254740995,` + lines + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.ID != 9007199254740993 || *o.OrderNumber != 9007199254740995 {
					t.Errorf("id %d number %d", o.ID, *o.OrderNumber)
				}
			}},
		{name: "largest int64", body: `{"id":9223372036854775807,"line_items":[{"id":9223372036854775807,"sku":"A","quantity":1000000000}]}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.ID != 1<<63-1 || o.Lines[0].ID != 1<<63-1 || o.Lines[0].Quantity != 1_000_000_000 {
					t.Errorf("%+v", o)
				}
			}},
		{name: "nulls map to empty strings", body: `{"id":1,"note":null,"shipping_address":{"name":null,"company":null,"address1":"x","address2":null,"province_code":null,"country_code":null,"phone":null,"zip":null,"city":null},"line_items":[{"id":1,"sku":null,"quantity":1,"requires_shipping":null}]}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.Note != "" || *o.ShippingAddress != (shipping.Address{Address1: "x"}) || o.Lines[0].SKU != "" || !o.Lines[0].RequiresShipping {
					t.Errorf("%+v %+v", o, o.ShippingAddress)
				}
			}},
		{name: "null order number", body: `{"id":1,"order_number":null,` + lines + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.OrderNumber != nil {
					t.Errorf("order number %v", *o.OrderNumber)
				}
			}},
		{name: "test and cancelled", body: `{"id":1,"test":true,"cancelled_at":"2025-03-14T11:00:00+01:00",` + lines + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if !o.Test || !o.Cancelled {
					t.Errorf("%+v", o)
				}
			}},
		{name: "not cancelled", body: `{"id":1,"test":false,"cancelled_at":null,` + lines + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.Test || o.Cancelled {
					t.Errorf("%+v", o)
				}
			}},
		{name: "shipping address not an object", body: `{"id":1,"shipping_address":"Berlin",` + lines + `}`, wantID: 1, wantErr: "shipping_address"},
		{name: "unicode and emoji kept", body: `{"id":1,"note":"🙏 Łukasz \u00e9\ud83d\ude00","shipping_address":{"name":"山田 太郎"},` + lines + `}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if o.Note != "🙏 Łukasz é😀" || o.ShippingAddress.Name != "山田 太郎" {
					t.Errorf("%q %q", o.Note, o.ShippingAddress.Name)
				}
			}},
		{name: "empty line items", body: `{"id":1,"line_items":[]}`,
			check: func(t *testing.T, o intake.StorefrontOrder) {
				if len(o.Lines) != 0 {
					t.Errorf("%+v", o.Lines)
				}
			}},
		{name: "not JSON", body: `{"id":1,`, wantErr: "body"},
		{name: "empty body", body: ``, wantErr: "body"},
		{name: "array", body: `[{"id":1}]`, wantErr: "body"},
		{name: "string", body: `"x"`, wantErr: "body"},
		{name: "trailing garbage", body: `{"id":1,` + lines + `} x`, wantErr: "body"},
		{name: "no id", body: `{` + lines + `}`, wantErr: "id"},
		{name: "null id", body: `{"id":null,` + lines + `}`, wantErr: "id"},
		{name: "zero id", body: `{"id":0,` + lines + `}`, wantErr: "id"},
		{name: "negative id", body: `{"id":-5,` + lines + `}`, wantErr: "id"},
		{name: "fractional id", body: `{"id":1.5,` + lines + `}`, wantErr: "id"},
		{name: "float-looking id", body: `{"id":5726128734520.0,` + lines + `}`, wantErr: "id"},
		{name: "exponent id", body: `{"id":1e3,` + lines + `}`, wantErr: "id"},
		{name: "string id", body: `{"id":"5726128734520",` + lines + `}`, wantErr: "id"},
		{name: "id beyond int64", body: `{"id":9223372036854775808,` + lines + `}`, wantErr: "id"},
		{name: "no line items", body: `{"id":7}`, wantID: 7, wantErr: "line_items"},
		{name: "null line items", body: `{"id":7,"line_items":null}`, wantID: 7, wantErr: "line_items"},
		{name: "line items not an array", body: `{"id":7,"line_items":{"sku":"A"}}`, wantID: 7, wantErr: "line_items"},
		{name: "largest int64 quantity", body: `{"id":7,"line_items":[{"sku":"A","quantity":9223372036854775807}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "quantity beyond int64", body: `{"id":7,"line_items":[{"sku":"A","quantity":1},{"sku":"B","quantity":9223372036854775808}]}`, wantID: 7, wantErr: "line_items[1].quantity"},
		{name: "no quantity", body: `{"id":7,"line_items":[{"sku":"A"}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "string quantity", body: `{"id":7,"line_items":[{"sku":"A","quantity":"2"}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "fractional quantity", body: `{"id":7,"line_items":[{"sku":"A","quantity":1.5}]}`, wantID: 7, wantErr: "line_items[0].quantity"},
		{name: "sku not a string", body: `{"id":7,"line_items":[{"sku":5,"quantity":1}]}`, wantID: 7, wantErr: "line_items.sku"},
		{name: "note not a string", body: `{"id":7,"note":5,` + lines + `}`, wantID: 7, wantErr: "note"},
		{name: "address field not a string", body: `{"id":7,"shipping_address":{"zip":10623},` + lines + `}`, wantID: 7, wantErr: "shipping_address.zip"},
		{name: "NUL in a sku", body: `{"id":7,"line_items":[{"sku":"A\u0000","quantity":1}]}`, wantID: 7, wantErr: "line_items[0].sku"},
		{name: "NUL in the note", body: `{"id":7,"note":"\u0000",` + lines + `}`, wantID: 7, wantErr: "note"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := httpapi.DecodeStorefrontOrder([]byte(tt.body))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, o)
				return
			}
			var ve *domain.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.wantErr {
				t.Fatalf("error %v, want one about %s", err, tt.wantErr)
			}
			if o.ID != tt.wantID {
				t.Errorf("refusal carries id %d, want %d", o.ID, tt.wantID)
			}
		})
	}
}

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
	if b.Len() > httpapi.StorefrontBodyLimit || b.Len() < 4<<20 {
		t.Fatalf("body of %d bytes, want between 4 MiB and the limit", b.Len())
	}
	o, err := httpapi.DecodeStorefrontOrder([]byte(b.String()))
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
		o, err := httpapi.DecodeStorefrontOrder(body)
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

// BenchmarkDecodeStorefrontOrder decodes the storefront sample (4.9 KB).
func BenchmarkDecodeStorefrontOrder(b *testing.B) {
	body := readSample(b, "orders-create.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := httpapi.DecodeStorefrontOrder(body); err != nil {
			b.Fatal(err)
		}
	}
}
