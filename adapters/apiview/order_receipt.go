package apiview

import (
	"strconv"

	"github.com/acme3pl/fulfillment/domain/intake"
)

// OrderReceipt is the OrderReceipt of api/openapi.yaml. Storefront IDs are
// decimal strings: they exceed JavaScript's safe integers.
type OrderReceipt struct {
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
	// PayloadKept tells whether the body of the order's last failed
	// delivery is kept for a replay; PayloadBytes is its size (null when
	// none is kept). The body itself is never returned.
	PayloadKept  bool `json:"payloadKept"`
	PayloadBytes *int `json:"payloadBytes"`
}

// OrderReceiptOf is rec as the API shows it: never the kept body.
func OrderReceiptOf(rec *intake.OrderReceipt) OrderReceipt {
	out := OrderReceipt{
		OrderID: strconv.FormatInt(rec.OrderID(), 10), Status: string(rec.Status()), Attempts: rec.Attempts(),
		LastError: optional(rec.LastError()), ShipmentID: optional(rec.ShipmentID()), Skipped: optional(string(rec.Skipped())),
		TraceID: optional(rec.TraceID()), FirstReceivedAt: FormatTime(rec.FirstReceived()), LastReceivedAt: FormatTime(rec.LastReceived()),
	}
	if n := rec.OrderNumber(); n != nil {
		s := strconv.FormatInt(*n, 10)
		out.OrderNumber = &s
	}
	if rec.PayloadKept() {
		n := rec.PayloadBytes()
		out.PayloadKept, out.PayloadBytes = true, &n
	}
	return out
}
