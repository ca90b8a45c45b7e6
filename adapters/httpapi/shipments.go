package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/resources"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// Shipments serves the /v0/shipments routes (scope shipments).
type Shipments struct {
	app    *shippingapp.UseCases
	auth   Authenticator
	errors ErrorMapper
	m      *telemetry.Metrics
}

// NewShipments builds the shipment routes.
func NewShipments(app *shippingapp.UseCases, auth Authenticator, errs ErrorMapper, m *telemetry.Metrics) *Shipments {
	return &Shipments{app: app, auth: auth, errors: errs, m: m}
}

// Register implements Routes.
func (h *Shipments) Register(r *mux.Router) {
	guard := func(next http.HandlerFunc) http.Handler { return h.auth.RequireScope(domain.ScopeShipments, next) }
	withBody := func(next http.HandlerFunc) http.Handler {
		return h.auth.RequireScope(domain.ScopeShipments, withBodyLimit(DefaultBodyLimit, next).ServeHTTP)
	}
	r.Handle("/v0/shipments", guard(h.list)).Methods(http.MethodGet)
	r.Handle("/v0/shipments/pick-pack", withBody(h.createPickPack)).Methods(http.MethodPost)
	r.Handle("/v0/shipments/spd", withBody(h.createSPD)).Methods(http.MethodPost)
	r.Handle("/v0/shipments/{id}", guard(h.get)).Methods(http.MethodGet)
	r.Handle("/v0/shipments/{id}/submit", guard(h.submit)).Methods(http.MethodPost)
	r.Handle("/v0/shipments/{id}/cancel", guard(h.cancel)).Methods(http.MethodPost)
}

func (h *Shipments) list(w http.ResponseWriter, r *http.Request) {
	p := readQuery(r.URL.Query())
	page := p.page()
	var status shipping.ShipmentStatus
	readParam(p, "status", shipping.ParseShipmentStatus, &status)
	if err := p.err(); err != nil {
		h.errors.Write(w, r, err)
		return
	}
	org := PrincipalFrom(r.Context()).OrganizationID
	res, err := h.app.ListShipments.Handle(r.Context(), shippingapp.ListShipments{OrganizationID: org, Status: status, Page: page})
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	out := make([]resources.Shipment, len(res.Shipments))
	for i, s := range res.Shipments {
		out[i] = resources.ShipmentOf(s)
	}
	SetNextLink(w, r, page, res.More)
	WriteJSON(w, http.StatusOK, out)
}

func (h *Shipments) get(w http.ResponseWriter, r *http.Request) {
	org := PrincipalFrom(r.Context()).OrganizationID
	s, err := h.app.GetShipment.Handle(r.Context(), shippingapp.GetShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) submit(w http.ResponseWriter, r *http.Request) {
	org := PrincipalFrom(r.Context()).OrganizationID
	s, err := h.app.SubmitShipment.Handle(r.Context(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	countTransition(h.m, s, err)
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) cancel(w http.ResponseWriter, r *http.Request) {
	org := PrincipalFrom(r.Context()).OrganizationID
	s, err := h.app.CancelShipment.Handle(r.Context(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: mux.Vars(r)["id"]})
	countTransition(h.m, s, err)
	h.answer(w, r, http.StatusOK, s, err)
}

func (h *Shipments) answer(w http.ResponseWriter, r *http.Request, status int, s *shipping.Shipment, err error) {
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	WriteJSON(w, status, resources.ShipmentOf(s))
}

// createPickPack serves POST /v0/shipments/pick-pack.
func (h *Shipments) createPickPack(w http.ResponseWriter, r *http.Request) {
	var body draftBody
	if err := readJSON(r, &body); err != nil {
		h.errors.Write(w, r, err)
		return
	}
	if body.Cartons != nil {
		h.errors.Write(w, r, domain.Invalid("cartons", "is not a member of a Pick & Pack draft"))
		return
	}
	lines, err := decodeLines[productLineBody]("items", body.Items)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	h.create(w, r, body.command(PrincipalFrom(r.Context()).OrganizationID, shipping.PickPack, lines))
}

// createSPD serves POST /v0/shipments/spd.
func (h *Shipments) createSPD(w http.ResponseWriter, r *http.Request) {
	var body draftBody
	if err := readJSON(r, &body); err != nil {
		h.errors.Write(w, r, err)
		return
	}
	if body.Items != nil {
		h.errors.Write(w, r, domain.Invalid("items", "is not a member of an SPD draft"))
		return
	}
	lines, err := decodeLines[cartonLineBody]("cartons", body.Cartons)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	h.create(w, r, body.command(PrincipalFrom(r.Context()).OrganizationID, shipping.SPD, lines))
}

// create runs the use case of both draft kinds and answers 201 with the
// draft and its Location.
func (h *Shipments) create(w http.ResponseWriter, r *http.Request, c shippingapp.CreateShipment) {
	s, err := h.app.CreateShipment.Handle(r.Context(), c)
	countTransition(h.m, s, err)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	w.Header().Set("Location", "/v0/shipments/"+s.ID())
	WriteJSON(w, http.StatusCreated, resources.ShipmentOf(s))
}
