package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

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

func newWarehouseHarness(principal ports.Principal) *warehouseHarness {
	h := &warehouseHarness{metrics: telemetry.NewMetrics(), result: warehouseapp.ShipResult{Shipment: warehouseShipped(shipping.ShipmentShipped)}}
	app := &warehouseapp.UseCases{}
	app.ShipShipment = recording(&h.ships, func(warehouseapp.ShipShipment) (warehouseapp.ShipResult, error) { return h.result, h.err })
	app.ListWarehouseShipments = recording(&h.lists, func(warehouseapp.ListWarehouseShipments) (warehouseapp.ShipmentPage, error) {
		return h.list, nil
	})
	h.router = routerOf(principal, func(auth httpapi.Authenticator, errs httpapi.ErrorMapper) httpapi.Routes {
		return httpapi.NewWarehouseShipments(app, auth, errs, h.metrics)
	})
	return h
}

var warehousePrincipal = ports.Principal{WarehouseID: "wh_a", Subject: "wms", Scopes: []domain.Scope{domain.ScopeWarehouse}}

func (h *warehouseHarness) do(method, target, body string) *httptest.ResponseRecorder {
	return serveWithToken(h.router, method, target, body)
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
	h := newWarehouseHarness(ports.Principal{OrganizationID: "org_a", Scopes: []domain.Scope{domain.ScopeShipments, domain.ScopeWarehouse}})
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
		Items: []ports.WarehouseShipment{{Shipment: warehouseShipped(shipping.ShipmentPending), OrganizationName: "Acme"}}, More: true,
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
