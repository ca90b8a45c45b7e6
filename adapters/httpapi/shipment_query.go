package httpapi

import (
	"net/http"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
)

// The query of a list of shipments, which two contexts answer: an
// organization's (GET /v0/shipments) and a warehouse's (GET
// /v0/warehouse/shipments).

// ShipmentListQuery reads the query of a list of shipments: its page and
// the status it keeps ("" for every one).
func ShipmentListQuery(r *http.Request) (ports.Page, shipping.ShipmentStatus, error) {
	p := ReadQuery(r.URL.Query())
	page := p.Page()
	var status shipping.ShipmentStatus
	ReadParam(p, "status", shipping.ParseShipmentStatus, &status)
	return page, status, p.Err()
}
