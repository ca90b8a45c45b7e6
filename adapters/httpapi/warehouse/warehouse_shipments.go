package warehouse

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// Shipments serves the warehouse's shipment routes (a warehouse's
// token, scope warehouse): its work list and the ship.
type Shipments struct {
	httpapi.Group[warehouseapp.UseCases]
}

// NewShipments builds the warehouse's shipment routes.
func NewShipments(app *warehouseapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper, m *telemetry.Metrics) *Shipments {
	return &Shipments{httpapi.NewGroup(app, auth, errs, m)}
}

// Register implements Routes.
func (h *Shipments) Register(r *mux.Router) {
	r.Handle("/v0/warehouse/shipments", h.Auth.RequireWarehouse(h.list)).Methods(http.MethodGet)
	r.Handle("/v0/warehouse/shipments/{id}/ship", httpapi.Guarded(h.Auth.RequireWarehouse, h.ship)).Methods(http.MethodPost)
}

// OrganizationRefDTO names the organization a warehouse's shipment is for.
type OrganizationRefDTO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ShipmentDTO is a shipment as its warehouse lists it: the
// shipment of every answer and its organization.
type ShipmentDTO struct {
	apiview.Shipment
	Organization OrganizationRefDTO `json:"organization"`
}

// list serves GET /v0/warehouse/shipments: status pending by default.
func (h *Shipments) list(w http.ResponseWriter, r *http.Request) {
	page, status, err := httpapi.ShipmentListQuery(r)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	wh := httpapi.PrincipalFrom(r.Context()).WarehouseID
	res, err := h.App.ListWarehouseShipments.Handle(r.Context(),
		warehouseapp.ListWarehouseShipments{WarehouseID: wh, Status: status, Page: page})
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	httpapi.WritePage(w, r, page, res, warehouseShipmentDTO)
}

func warehouseShipmentDTO(ws shippingports.WarehouseShipment) ShipmentDTO {
	return ShipmentDTO{
		Shipment:     apiview.ShipmentOf(ws.Shipment),
		Organization: OrganizationRefDTO{ID: ws.Shipment.OrganizationID(), Name: ws.OrganizationName},
	}
}

// shipBody is the body of a ship: strict JSON, like every body of the API
// (a member of another type or an unknown member is 400 naming it). A
// member absent or null is empty, which the domain refuses.
type shipBody struct {
	Carrier        string `json:"carrier"`
	TrackingNumber string `json:"trackingNumber"`
}

// ship serves POST /v0/warehouse/shipments/{id}/ship: 200 with the
// shipment, the first time and on every replay.
func (h *Shipments) ship(w http.ResponseWriter, r *http.Request) {
	var body shipBody
	if err := httpapi.ReadJSON(r, &body); err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	res, err := h.App.ShipShipment.Handle(r.Context(), warehouseapp.ShipShipment{
		WarehouseID: httpapi.PrincipalFrom(r.Context()).WarehouseID, ShipmentID: mux.Vars(r)["id"],
		Carrier: body.Carrier, TrackingNumber: body.TrackingNumber,
	})
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	if !res.Replay {
		httpapi.CountTransition(h.Metrics, res.Shipment, nil)
	}
	httpapi.WriteJSON(w, http.StatusOK, apiview.ShipmentOf(res.Shipment))
}
