package warehouse_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/httpapi/routetest"
	warehousehttp "github.com/acme3pl/fulfillment/adapters/httpapi/warehouse"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// The routes a warehouse calls: its receipts and services, then its
// shipments.

// recvHarness serves the receiving routes with use cases that run the
// domain's constructors (so that 400s come from where they do in
// production) and answer what the test sets.
type recvHarness struct {
	router   *mux.Router
	metrics  *telemetry.Metrics
	receipts []warehouseapp.RecordWarehouseReceipt
	services []warehouseapp.RecordWarehouseService
	created  bool  // the result's Created
	err      error // returned after validation
}

var recvNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func newRecvHarness(principal accessports.Principal) *recvHarness {
	h := &recvHarness{metrics: telemetry.NewMetrics(), created: true}
	app := &warehouseapp.UseCases{}
	app.RecordWarehouseReceipt = routetest.Recording(&h.receipts,
		func(c warehouseapp.RecordWarehouseReceipt) (warehouseapp.ReceiptResult, error) {
			rec, err := warehouse.NewReceipt("rcv_1", recvNow, warehouse.ReceiptReport(c))
			if err == nil {
				_ = rec.Resolve(map[string]shipping.InventoryItem{"prod_1": {ID: "prod_1", OrganizationID: c.OrganizationID, SKU: "TEE"}},
					map[string]shipping.InventoryItem{"ctn_1": {ID: "ctn_1", OrganizationID: c.OrganizationID, SKU: "CTN"}})
			}
			return recorded(h, rec, err)
		})
	app.RecordWarehouseService = routetest.Recording(&h.services,
		func(c warehouseapp.RecordWarehouseService) (warehouseapp.ServiceResult, error) {
			s, err := warehouse.NewServiceRecord("svc_1", recvNow, warehouse.ServiceReport(c))
			return recorded(h, s, err)
		})
	h.router = routetest.RouterOf(principal, func(auth httpapi.Authenticator, errs httpapi.ErrorMapper) httpapi.Routes {
		return warehousehttp.NewReceiving(app, auth, errs, h.metrics)
	})
	return h
}

// recorded is the stubs' answer with the report the command made: its
// validation error, then the harness's error, else the report, created as
// the harness says.
func recorded[T any](h *recvHarness, report T, err error) (warehouseapp.Recorded[T], error) {
	if err == nil {
		err = h.err
	}
	if err != nil {
		return warehouseapp.Recorded[T]{}, err
	}
	return warehouseapp.Recorded[T]{Report: report, Created: h.created}, nil
}

var whPrincipal = accessports.Principal{WarehouseID: "wh_east", Subject: "wms", Scopes: []domain.Scope{domain.ScopeWarehouse}}

func (h *recvHarness) post(path, body string) (*httptest.ResponseRecorder, map[string]any) {
	w := routetest.ServeWithToken(h.router, http.MethodPost, path, body)
	var out map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &out)
	return w, out
}

const recvBody = `{"organizationId": "org_acme", "reference": "ASN-1", "receivedAt": "2026-11-26T08:30:00.250Z",
	"items": [{"productId": "prod_1", "quantity": 10}, {"cartonId": "ctn_1", "quantity": 2}]}`

func TestWarehouseReceiptRoute(t *testing.T) {
	h := newRecvHarness(whPrincipal)
	w, out := h.post("/v0/warehouse/receipts", recvBody)
	if w.Code != http.StatusCreated || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, %s", w.Code, w.Body.String())
	}
	want := map[string]any{
		"id": "rcv_1", "organizationId": "org_acme", "warehouseId": "wh_east", "reference": "ASN-1",
		"receivedAt": "2026-11-26T08:30:00.250Z", "createdAt": "2026-11-26T12:00:00.000Z",
		"items": []any{
			map[string]any{"productId": "prod_1", "sku": "TEE", "quantity": 10.0},
			map[string]any{"cartonId": "ctn_1", "sku": "CTN", "quantity": 2.0},
		},
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("body %v\nwant %v", out, want)
	}
	if c := h.receipts[0]; c.WarehouseID != "wh_east" || c.ReceivedAt == nil || len(c.Lines) != 2 {
		t.Fatalf("command %+v", c)
	}
	if got := testutil.ToFloat64(h.metrics.UnitsReceived.WithLabelValues("product")); got != 10 {
		t.Errorf("units received (product) = %v, want 10", got)
	}
	if got := testutil.ToFloat64(h.metrics.UnitsReceived.WithLabelValues("carton")); got != 2 {
		t.Errorf("units received (carton) = %v, want 2", got)
	}

	// A retry: 200, nothing counted.
	h.created = false
	if w, _ := h.post("/v0/warehouse/receipts", recvBody); w.Code != http.StatusOK {
		t.Fatalf("retry: status %d", w.Code)
	}
	if got := testutil.ToFloat64(h.metrics.UnitsReceived.WithLabelValues("product")); got != 10 {
		t.Errorf("a retry counted units: %v", got)
	}
}

// reportRefusal is a report's body that its route refuses, or that it
// answers with the error its use case returns (err).
type reportRefusal struct {
	name, body string
	err        error
	wantStatus int
	wantCode   string
	wantParam  string
}

// run posts the body to path and checks the problem answered.
func (tt reportRefusal) run(t *testing.T, path string) (*recvHarness, *httptest.ResponseRecorder) {
	t.Helper()
	h := newRecvHarness(whPrincipal)
	h.err = tt.err
	w, out := h.post(path, tt.body)
	if w.Code != tt.wantStatus || out["code"] != tt.wantCode || (tt.wantParam != "" && out["parameter"] != tt.wantParam) {
		t.Fatalf("status %d, body %s; want %d %s naming %q", w.Code, w.Body.String(), tt.wantStatus, tt.wantCode, tt.wantParam)
	}
	return h, w
}

func TestWarehouseReceiptRouteRefuses(t *testing.T) {
	tests := []reportRefusal{
		{"organizationId a number", `{"organizationId": 1, "reference": "A", "items": []}`, nil, 400, "invalid_parameter", "organizationId"},
		{"items an object", `{"organizationId": "o", "reference": "A", "items": {}}`, nil, 400, "invalid_parameter", "items"},
		{"an item a string", `{"organizationId": "o", "reference": "A", "items": ["x"]}`, nil, 400, "invalid_parameter", "items[0]"},
		{"an item null", `{"organizationId": "o", "reference": "A", "items": [null]}`, nil, 400, "invalid_parameter", "items[0]"},
		{"an unknown member", `{"organizationId": "o", "reference": "A", "items": [], "extra": 1}`, nil, 400, "invalid_parameter", "extra"},
		{"an unknown member of an item", `{"organizationId": "o", "reference": "A", "items": [{"productId": "p", "quantity": 1, "sku": "X"}]}`,
			nil, 400, "invalid_parameter", "items[0].sku"},
		{"productId a number", `{"organizationId": "o", "reference": "A", "items": [{"productId": 5, "quantity": 1}]}`,
			nil, 400, "invalid_parameter", "items[0].productId"},
		{"a quantity as a string", `{"organizationId": "o", "reference": "A", "items": [{"productId": "p", "quantity": "1"}]}`,
			nil, 400, "invalid_parameter", "items[0].quantity"},
		{"a fractional quantity", `{"organizationId": "o", "reference": "A", "items": [{"productId": "p", "quantity": 1.5}]}`,
			nil, 400, "invalid_parameter", "items[0].quantity"},
		{"both ids", `{"organizationId": "o", "reference": "A", "items": [{"productId": "p", "cartonId": "c", "quantity": 1}]}`,
			nil, 400, "invalid_parameter", "items[0]"},
		{"no reference", `{"organizationId": "o", "items": [{"productId": "p", "quantity": 1}]}`, nil, 400, "invalid_parameter", "reference"},
		{"receivedAt not a time", `{"organizationId": "o", "reference": "A", "receivedAt": "yesterday", "items": [{"productId": "p", "quantity": 1}]}`,
			nil, 400, "invalid_parameter", "receivedAt"},
		{"receivedAt a number", `{"organizationId": "o", "reference": "A", "receivedAt": 1, "items": [{"productId": "p", "quantity": 1}]}`,
			nil, 400, "invalid_parameter", "receivedAt"},
		{"receivedAt in the future", `{"organizationId": "o", "reference": "A", "receivedAt": "2026-11-26T12:00:01Z", "items": [{"productId": "p", "quantity": 1}]}`,
			nil, 400, "invalid_parameter", "receivedAt"},
		{"reference conflict", recvBody, fmt.Errorf("r: %w", warehouse.ErrReferenceConflict), 409, "reference_conflict", ""},
		{"unknown items", recvBody, &shipping.UnknownItemsError{IDs: []string{"prod_1", "ctn_1"}}, 422, "unknown_items", ""},
		{"invalid warehouse", recvBody, fmt.Errorf("w: %w", domain.ErrInvalidWarehouse), 422, "invalid_warehouse", ""},
		{"period closed", recvBody, fmt.Errorf("p: %w", warehouse.ErrPeriodClosed), 422, "period_closed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, w := tt.run(t, "/v0/warehouse/receipts")
			if w.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("content type %q", w.Header().Get("Content-Type"))
			}
			if got := testutil.ToFloat64(h.metrics.UnitsReceived.WithLabelValues("product")); got != 0 {
				t.Errorf("a refusal counted units: %v", got)
			}
		})
	}
}

func TestWarehouseRoutesRefuseOrganizationTokens(t *testing.T) {
	h := newRecvHarness(accessports.Principal{OrganizationID: "org_acme", Scopes: []domain.Scope{domain.ScopeWarehouse}})
	for _, path := range []string{"/v0/warehouse/receipts", "/v0/warehouse/services"} {
		if w, out := h.post(path, recvBody); w.Code != http.StatusForbidden || out["code"] != "insufficient_scope" {
			t.Fatalf("%s: status %d, %s", path, w.Code, w.Body.String())
		}
	}
	if len(h.receipts)+len(h.services) != 0 {
		t.Fatal("a use case ran")
	}
}

func TestWarehouseServiceRoute(t *testing.T) {
	tests := []struct {
		quantity  string
		wantMilli int64 // 0: refused, 400 naming quantity
		wantJSON  string
	}{
		{"1.5", 1500, "1.5"},
		{"2", 2000, "2"},
		{"0.125", 125, "0.125"},
		{"1000000000", 1_000_000_000_000, "1000000000"},
		{"15E-1", 1500, "1.5"},
		{"1.2345", 0, ""},
		{"0", 0, ""},
		{"-1", 0, ""},
		{`"1.5"`, 0, ""},
		{"null", 0, ""},
		{"true", 0, ""},
		{"1000000000.001", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.quantity, func(t *testing.T) {
			h := newRecvHarness(whPrincipal)
			w, out := h.post("/v0/warehouse/services", `{"organizationId": "org_acme", "reference": "JOB-1", "service": "kitting",
				"quantity": `+tt.quantity+`, "note": "gift sets"}`)
			if tt.wantMilli == 0 {
				if w.Code != 400 || out["parameter"] != "quantity" {
					t.Fatalf("status %d, %s; want 400 naming quantity", w.Code, w.Body.String())
				}
				return
			}
			if w.Code != http.StatusCreated || h.services[0].QuantityMilli != tt.wantMilli {
				t.Fatalf("status %d, %s; command %+v", w.Code, w.Body.String(), h.services)
			}
			if !strings.Contains(w.Body.String(), `"quantity":`+tt.wantJSON+`,`) {
				t.Fatalf("body %s, want quantity %s", w.Body.String(), tt.wantJSON)
			}
			if out["note"] != "gift sets" || out["service"] != "kitting" || out["performedAt"] != "2026-11-26T12:00:00.000Z" {
				t.Fatalf("body %v", out)
			}
		})
	}
}

func TestWarehouseServiceRouteRefuses(t *testing.T) {
	tests := []reportRefusal{
		{"service a number", `{"organizationId": "o", "reference": "A", "service": 1, "quantity": 1}`, nil, 400, "invalid_parameter", "service"},
		{"note a number", `{"organizationId": "o", "reference": "A", "service": "s", "quantity": 1, "note": 1}`, nil, 400, "invalid_parameter", "note"},
		{"performedAt in the future", `{"organizationId": "o", "reference": "A", "service": "s", "quantity": 1, "performedAt": "2027-01-01T00:00:00Z"}`,
			nil, 400, "invalid_parameter", "performedAt"},
		{"unknown service", `{"organizationId": "o", "reference": "A", "service": "s", "quantity": 1}`,
			fmt.Errorf("s: %w", warehouse.ErrUnknownService), 422, "unknown_service", ""},
		{"reference conflict", `{"organizationId": "o", "reference": "A", "service": "s", "quantity": 1}`,
			fmt.Errorf("s: %w", warehouse.ErrReferenceConflict), 409, "reference_conflict", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, "/v0/warehouse/services")
		})
	}
}

// warehouseHarness is the warehouse's shipment routes with the use cases
// stubbed: ship answers result/err, the list answers list.
type warehouseHarness struct {
	router  *mux.Router
	result  warehouseapp.ShipResult
	err     error
	ships   []warehouseapp.ShipShipment
	lists   []warehouseapp.ListWarehouseShipments
	list    warehouseapp.ShipmentPage
	metrics *telemetry.Metrics
}

func warehouseShipped(status shipping.ShipmentStatus) *shipping.Shipment {
	at := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	p := shipping.RehydrateShipmentParams{
		NewShipmentParams: shipping.NewShipmentParams{ID: "shp_1", OrganizationID: "org_a", Kind: shipping.PickPack,
			Warehouse: domain.WarehouseRef{ID: "wh_a", Name: "East"}, Lines: []shipping.ShipmentLine{{ItemID: "prod_1", SKU: "P-1", Quantity: 2}}},
		Status: status, CreatedAt: at, UpdatedAt: at, SubmittedAt: &at,
	}
	if status == shipping.ShipmentShipped {
		p.ShippedAt, p.Tracking = &at, &shipping.Tracking{Carrier: "UPS", Number: "1Z9"}
	}
	return shipping.RehydrateShipment(p)
}

func newWarehouseHarness(principal accessports.Principal) *warehouseHarness {
	h := &warehouseHarness{metrics: telemetry.NewMetrics(), result: warehouseapp.ShipResult{Shipment: warehouseShipped(shipping.ShipmentShipped)}}
	app := &warehouseapp.UseCases{}
	app.ShipShipment = routetest.Recording(&h.ships, func(warehouseapp.ShipShipment) (warehouseapp.ShipResult, error) { return h.result, h.err })
	app.ListWarehouseShipments = routetest.Recording(&h.lists, func(warehouseapp.ListWarehouseShipments) (warehouseapp.ShipmentPage, error) {
		return h.list, nil
	})
	h.router = routetest.RouterOf(principal, func(auth httpapi.Authenticator, errs httpapi.ErrorMapper) httpapi.Routes {
		return warehousehttp.NewShipments(app, auth, errs, h.metrics)
	})
	return h
}

var warehousePrincipal = accessports.Principal{WarehouseID: "wh_a", Subject: "wms", Scopes: []domain.Scope{domain.ScopeWarehouse}}

func (h *warehouseHarness) do(method, target, body string) *httptest.ResponseRecorder {
	return routetest.ServeWithToken(h.router, method, target, body)
}

func TestWarehouseShipBody(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantParam  string
	}{
		{"valid", `{"carrier": "UPS", "trackingNumber": "1Z9"}`, 200, ""},
		{"carrier a number", `{"carrier": 5, "trackingNumber": "1Z9"}`, 400, "carrier"},
		{"tracking number a number", `{"carrier": "UPS", "trackingNumber": 1234}`, 400, "trackingNumber"},
		{"unknown member", `{"carrier": "UPS", "trackingNumber": "1Z9", "service": "ground"}`, 400, "service"},
		{"not an object", `["UPS"]`, 400, "body"},
		{"two objects", `{"carrier": "UPS", "trackingNumber": "1Z9"} {}`, 400, "body"},
		{"empty", ``, 415, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newWarehouseHarness(warehousePrincipal)
			w := h.do(http.MethodPost, "/v0/warehouse/shipments/shp_1/ship", tt.body)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			if tt.wantStatus != 200 {
				var p httpapi.Problem
				_ = json.Unmarshal(w.Body.Bytes(), &p)
				if p.Parameter != tt.wantParam || len(h.ships) != 0 {
					t.Fatalf("parameter %q, want %q; use case ran %d times", p.Parameter, tt.wantParam, len(h.ships))
				}
				return
			}
			if len(h.ships) != 1 || h.ships[0] != (warehouseapp.ShipShipment{WarehouseID: "wh_a", ShipmentID: "shp_1", Carrier: "UPS", TrackingNumber: "1Z9"}) {
				t.Fatalf("commands %+v", h.ships)
			}
			var got map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got["status"] != "shipped" || got["shippedAt"] != "2026-11-24T09:30:00.000Z" ||
				got["tracking"].(map[string]any)["number"] != "1Z9" {
				t.Fatalf("body %s", w.Body)
			}
		})
	}
}

func TestWarehouseShipCountsOnlyTheFirst(t *testing.T) {
	h := newWarehouseHarness(warehousePrincipal)
	shipped := h.metrics.ShipmentTransitions.WithLabelValues("pick_pack", "shipped")
	for _, replay := range []bool{false, true, true} {
		h.result.Replay = replay
		if w := h.do(http.MethodPost, "/v0/warehouse/shipments/shp_1/ship", `{"carrier": "UPS", "trackingNumber": "1Z9"}`); w.Code != 200 {
			t.Fatalf("status %d", w.Code)
		}
	}
	if got := testutil.ToFloat64(shipped); got != 1 {
		t.Fatalf("shipped transitions %v, want 1 (replays are not transitions)", got)
	}
}

func TestWarehouseShipErrors(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
	}{
		{"unknown", domain.ErrNotFound, 404, "not_found"},
		{"not pending", domain.ErrInvalidState, 409, "invalid_state"},
		{"on hand short", &shipping.OnHandShortageError{Kind: shipping.KindProduct,
			Items: []shipping.StockShortage{{ItemID: "prod_1", SKU: "P-1", Requested: 2, Available: 1}}}, 409, "insufficient_stock"},
		{"bad tracking", domain.Invalid("trackingNumber", "must be 1 to 64 characters"), 400, "invalid_parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newWarehouseHarness(warehousePrincipal)
			h.err = tt.err
			w := h.do(http.MethodPost, "/v0/warehouse/shipments/shp_1/ship", `{"carrier": "UPS", "trackingNumber": "1Z9"}`)
			var p httpapi.Problem
			_ = json.Unmarshal(w.Body.Bytes(), &p)
			if w.Code != tt.wantStatus || p.Code != tt.wantCode {
				t.Fatalf("%d %s, want %d %s", w.Code, w.Body, tt.wantStatus, tt.wantCode)
			}
			if tt.wantCode == "insufficient_stock" && (len(p.Items) != 1 || !strings.Contains(w.Body.String(), `"productId":"prod_1"`)) {
				t.Fatalf("items of the shortage: %s", w.Body)
			}
		})
	}
}

func TestWarehouseRoutesRefuseAnOrganizationsToken(t *testing.T) {
	h := newWarehouseHarness(accessports.Principal{OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeShipments, domain.ScopeWarehouse}})
	for _, w := range []*httptest.ResponseRecorder{
		h.do(http.MethodGet, "/v0/warehouse/shipments", ""),
		h.do(http.MethodPost, "/v0/warehouse/shipments/shp_1/ship", `{"carrier": "UPS", "trackingNumber": "1Z9"}`),
	} {
		if w.Code != http.StatusForbidden {
			t.Fatalf("status %d, want 403: %s", w.Code, w.Body)
		}
	}
	if len(h.ships)+len(h.lists) != 0 {
		t.Fatal("a use case ran")
	}
}

func TestWarehouseList(t *testing.T) {
	h := newWarehouseHarness(warehousePrincipal)
	h.list = warehouseapp.ShipmentPage{
		Items: []shippingports.WarehouseShipment{{Shipment: warehouseShipped(shipping.ShipmentPending), OrganizationName: "Acme"}}, More: true,
	}
	w := h.do(http.MethodGet, "/v0/warehouse/shipments?take=1", "")
	if w.Code != 200 || !strings.Contains(w.Header().Get("Link"), "skip=1") {
		t.Fatalf("%d Link %q", w.Code, w.Header().Get("Link"))
	}
	var got []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0]["id"] != "shp_1" || got[0]["shippedAt"] != nil ||
		got[0]["organization"].(map[string]any)["name"] != "Acme" || got[0]["organization"].(map[string]any)["id"] != "org_a" {
		t.Fatalf("body %s", w.Body)
	}
	if h.lists[0] != (warehouseapp.ListWarehouseShipments{WarehouseID: "wh_a", Page: ports.Page{Take: 1}}) {
		t.Fatalf("query %+v (no status: the use case's default)", h.lists[0])
	}
	h.do(http.MethodGet, "/v0/warehouse/shipments?status=shipped", "")
	if h.lists[1].Status != shipping.ShipmentShipped {
		t.Fatalf("query %+v", h.lists[1])
	}
	if w := h.do(http.MethodGet, "/v0/warehouse/shipments?status=lost", ""); w.Code != 400 || len(h.lists) != 2 {
		t.Fatalf("status=lost: %d", w.Code)
	}
}
