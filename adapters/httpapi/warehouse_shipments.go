package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/resources"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// WarehouseShipments serves the warehouse's shipment routes (a warehouse's
// token, scope warehouse): its work list and the ship.
type WarehouseShipments struct{ group[warehouseapp.UseCases] }

// NewWarehouseShipments builds the warehouse's shipment routes.
func NewWarehouseShipments(app *warehouseapp.UseCases, auth Authenticator, errs ErrorMapper, m *telemetry.Metrics) *WarehouseShipments {
	return &WarehouseShipments{newGroup(app, auth, errs, m)}
}

// Register implements Routes.
func (h *WarehouseShipments) Register(r *mux.Router) {
	r.Handle("/v0/warehouse/shipments", h.auth.RequireWarehouse(h.list)).Methods(http.MethodGet)
	r.Handle("/v0/warehouse/shipments/{id}/ship", bounded(h.auth.RequireWarehouse, h.ship)).Methods(http.MethodPost)
}

// OrganizationRefDTO names the organization a warehouse's shipment is for.
type OrganizationRefDTO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// WarehouseShipmentDTO is a shipment as its warehouse lists it: the
// shipment of every answer and its organization.
type WarehouseShipmentDTO struct {
	resources.Shipment
	Organization OrganizationRefDTO `json:"organization"`
}

// list serves GET /v0/warehouse/shipments: status pending by default.
func (h *WarehouseShipments) list(w http.ResponseWriter, r *http.Request) {
	page, status, err := shipmentListQuery(r)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	wh := PrincipalFrom(r.Context()).WarehouseID
	res, err := h.app.ListWarehouseShipments.Handle(r.Context(),
		warehouseapp.ListWarehouseShipments{WarehouseID: wh, Status: status, Page: page})
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	writePage(w, r, page, res, warehouseShipmentDTO)
}

func warehouseShipmentDTO(ws shippingports.WarehouseShipment) WarehouseShipmentDTO {
	return WarehouseShipmentDTO{
		Shipment:     resources.ShipmentOf(ws.Shipment),
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
func (h *WarehouseShipments) ship(w http.ResponseWriter, r *http.Request) {
	var body shipBody
	if err := readJSON(r, &body); err != nil {
		h.errors.Write(w, r, err)
		return
	}
	res, err := h.app.ShipShipment.Handle(r.Context(), warehouseapp.ShipShipment{
		WarehouseID: PrincipalFrom(r.Context()).WarehouseID, ShipmentID: mux.Vars(r)["id"],
		Carrier: body.Carrier, TrackingNumber: body.TrackingNumber,
	})
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	if !res.Replay {
		countTransition(h.m, res.Shipment, nil)
	}
	WriteJSON(w, http.StatusOK, resources.ShipmentOf(res.Shipment))
}
