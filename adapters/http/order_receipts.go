package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// OrderReceiptDTO is the OrderReceipt of api/openapi.yaml. Storefront IDs are
// decimal strings: they exceed JavaScript's safe integers.
type OrderReceiptDTO struct {
	OrderID         string  `json:"orderId"`
	OrderNumber     *string `json:"orderNumber"`
	Status          string  `json:"status"`
	Attempts        int     `json:"attempts"`
	LastError       *string `json:"lastError"`
	ShipmentID      *string `json:"shipmentId"`
	Skipped         *string `json:"skipped"`
	TraceID         *string `json:"traceId"`
	FirstReceivedAt string  `json:"firstReceivedAt"`
	LastReceivedAt  string  `json:"lastReceivedAt"`
}

func orderReceiptDTO(rec *domain.OrderReceipt) OrderReceiptDTO {
	out := OrderReceiptDTO{
		OrderID: strconv.FormatInt(rec.OrderID(), 10), Status: string(rec.Status()), Attempts: rec.Attempts(),
		LastError: optional(rec.LastError()), ShipmentID: optional(rec.ShipmentID()), Skipped: optional(string(rec.Skipped())),
		TraceID: optional(rec.TraceID()), FirstReceivedAt: FormatTime(rec.FirstReceived()), LastReceivedAt: FormatTime(rec.LastReceived()),
	}
	if n := rec.OrderNumber(); n != nil {
		s := strconv.FormatInt(*n, 10)
		out.OrderNumber = &s
	}
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// receipt serves GET /v0/storefront/orders/{orderId}. An orderId that is
// not the decimal form of a positive 64-bit integer names no order: 404.
func (h *Storefront) receipt(w http.ResponseWriter, r *http.Request) {
	raw := mux.Vars(r)["orderId"]
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != raw {
		h.errors.Write(w, r, domain.ErrNotFound)
		return
	}
	org := PrincipalFrom(r.Context()).OrganizationID
	trace.SpanFromContext(r.Context()).SetAttributes(attribute.String("organization.id", org),
		attribute.Int64("storefront.order.id", id))
	rec, err := h.app.Queries.GetOrderReceipt.Handle(r.Context(), application.GetOrderReceipt{OrganizationID: org, OrderID: id})
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, orderReceiptDTO(rec))
}
