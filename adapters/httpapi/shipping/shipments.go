package shipping

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// Shipments serves the /v0/shipments routes (scope shipments).
type Shipments struct {
	httpapi.Group[shippingapp.UseCases]
}

// NewShipments builds the shipment routes.
func NewShipments(app *shippingapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper, m *telemetry.Metrics) *Shipments {
	return &Shipments{httpapi.NewGroup(app, auth, errs, m)}
}

// Register implements Routes.
func (h *Shipments) Register(r *mux.Router) {
	guard := func(next http.HandlerFunc) http.Handler { return h.Auth.RequireScope(domain.ScopeShipments, next) }
	r.Handle("/v0/shipments", guard(h.list)).Methods(http.MethodGet)
	r.Handle("/v0/shipments/pick-pack", httpapi.Guarded(guard, h.create(shipping.PickPack))).Methods(http.MethodPost)
	r.Handle("/v0/shipments/spd", httpapi.Guarded(guard, h.create(shipping.SPD))).Methods(http.MethodPost)
	r.Handle("/v0/shipments/{id}", guard(h.get)).Methods(http.MethodGet)
	r.Handle("/v0/shipments/{id}/submit", guard(h.submit)).Methods(http.MethodPost)
	r.Handle("/v0/shipments/{id}/cancel", guard(h.cancel)).Methods(http.MethodPost)
}

func (h *Shipments) list(w http.ResponseWriter, r *http.Request) {
	page, status, err := httpapi.ShipmentListQuery(r)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	org := httpapi.PrincipalFrom(r.Context()).OrganizationID
	res, err := h.App.ListShipments.Handle(r.Context(), shippingapp.ListShipments{OrganizationID: org, Status: status, Page: page})
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	httpapi.WritePage(w, r, page, res, apiview.ShipmentOf)
}

func (h *Shipments) get(w http.ResponseWriter, r *http.Request) {
	org := httpapi.PrincipalFrom(r.Context()).OrganizationID
	s, err := h.App.GetShipment.Handle(r.Context(), shippingapp.GetShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) submit(w http.ResponseWriter, r *http.Request) {
	org := httpapi.PrincipalFrom(r.Context()).OrganizationID
	s, err := h.App.SubmitShipment.Handle(r.Context(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	httpapi.CountTransition(h.Metrics, s, err)
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) cancel(w http.ResponseWriter, r *http.Request) {
	org := httpapi.PrincipalFrom(r.Context()).OrganizationID
	s, err := h.App.CancelShipment.Handle(r.Context(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	httpapi.CountTransition(h.Metrics, s, err)
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) answer(w http.ResponseWriter, r *http.Request, status int, s *shipping.Shipment, err error) {
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	httpapi.WriteJSON(w, status, apiview.ShipmentOf(s))
}

// create serves POST /v0/shipments/pick-pack and POST /v0/shipments/spd:
// a draft of the kind, answered 201 with its Location.
func (h *Shipments) create(kind shipping.ShipmentKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body draftBody
		if err := httpapi.ReadJSON(r, &body); err != nil {
			h.Errors.Write(w, r, err)
			return
		}
		lines, err := body.lines(kind)
		if err != nil {
			h.Errors.Write(w, r, err)
			return
		}
		s, err := h.App.CreateShipment.Handle(r.Context(), body.command(httpapi.PrincipalFrom(r.Context()).OrganizationID, kind, lines))
		httpapi.CountTransition(h.Metrics, s, err)
		if err == nil {
			w.Header().Set("Location", "/v0/shipments/"+s.ID())
		}
		h.answer(w, r, http.StatusCreated, s, err)
	}
}
