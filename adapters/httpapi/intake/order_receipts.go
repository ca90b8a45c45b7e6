package intake

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
)

// receipt serves GET /v0/storefront/orders/{orderId}. An orderId that is
// not the decimal form of a positive 64-bit integer names no order: 404.
func (h *Storefront) receipt(w http.ResponseWriter, r *http.Request) {
	id, ok := pathOrderID(r)
	if !ok {
		h.Errors.Write(w, r, domain.ErrNotFound)
		return
	}
	org := httpapi.PrincipalFrom(r.Context()).OrganizationID
	trace.SpanFromContext(r.Context()).SetAttributes(attribute.String("organization.id", org),
		attribute.Int64("storefront.order.id", id))
	rec, err := h.App.GetOrderReceipt.Handle(r.Context(), intakeapp.GetOrderReceipt{OrganizationID: org, OrderID: id})
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store") // a receipt changes with each delivery and replay
	httpapi.WriteJSON(w, http.StatusOK, apiview.OrderReceiptOf(rec))
}

// pathOrderID reads {orderId}: the decimal form of a positive 64-bit
// integer, written the one way strconv writes it (no sign, no leading
// zero), or no order at all.
func pathOrderID(r *http.Request) (int64, bool) {
	raw := mux.Vars(r)["orderId"]
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != raw {
		return 0, false
	}
	return id, true
}

// StorefrontOrders serves the operator's routes of failed orders (OAuth,
// scope shipments): the list of receipts and the replay of a kept body.
type StorefrontOrders struct {
	httpapi.Group[intakeapp.UseCases]
}

// NewStorefrontOrders builds the routes.
func NewStorefrontOrders(app *intakeapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper) *StorefrontOrders {
	return &StorefrontOrders{httpapi.NewGroup(app, auth, errs, nil)}
}

// Register implements Routes. The list shares its path with the intake's
// POST (another group): the router answers each method from its own group.
func (h *StorefrontOrders) Register(r *mux.Router) {
	guard := func(next http.HandlerFunc) http.Handler { return h.Auth.RequireScope(domain.ScopeShipments, next) }
	r.Handle("/v0/storefront/orders", guard(h.list)).Methods(http.MethodGet)
	r.Handle("/v0/storefront/orders/{orderId}/replay", guard(h.replay)).Methods(http.MethodPost)
}

// list serves GET /v0/storefront/orders.
func (h *StorefrontOrders) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := httpapi.ParsePage(q)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	var status, code string
	if v, ok := q["status"]; ok {
		if status = httpapi.Last(v); status == "" {
			status = "-" // present but empty: not a status
		}
	}
	if v, ok := q["error"]; ok {
		if code = httpapi.Last(v); code == "" {
			code = "-"
		}
	}
	filter, err := intakeapp.ParseReceiptFilter(status, code)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	org := httpapi.PrincipalFrom(r.Context()).OrganizationID
	res, err := h.App.ListOrderReceipts.Handle(r.Context(),
		intakeapp.ListOrderReceipts{OrganizationID: org, Filter: filter, Page: page})
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store") // receipts change with each delivery and replay
	httpapi.WritePage(w, r, page, res, apiview.OrderReceiptOf)
}

// replay serves POST /v0/storefront/orders/{orderId}/replay. It answers as
// the intake answers an order it processed — 200 with the intake's success
// body, 400 or 422 with its error body — and every other error (the order
// unknown, its body gone, the database away) as a problem, as the other
// OAuth routes do. A replay takes no body.
func (h *StorefrontOrders) replay(w http.ResponseWriter, r *http.Request) {
	id, ok := pathOrderID(r)
	if !ok {
		h.Errors.Write(w, r, domain.ErrNotFound)
		return
	}
	ctx := r.Context()
	org := httpapi.PrincipalFrom(ctx).OrganizationID
	traceID := ""
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		traceID = sc.TraceID().String()
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("organization.id", org),
		attribute.Int64("storefront.order.id", id))
	res, err := h.App.ReplayStorefrontOrder.Handle(ctx, intakeapp.ReplayStorefrontOrder{
		OrganizationID: org, OrderID: id, TraceID: traceID,
	})
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		if application.KindOf(err).Refused() {
			e := intakeErrorOf(err)
			httpapi.NoteError(h.Errors.Log, r, err)
			httpapi.WriteJSON(w, e.status, e)
			return
		}
		h.Errors.Write(w, r, err)
		return
	}
	out := intakeResult{Success: true, Duplicate: res.Duplicate, Skipped: string(res.Skipped)}
	if res.ShipmentID != "" {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("shipment.id", res.ShipmentID))
		out.ShipmentID = &res.ShipmentID
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}
