package console

import (
	"net/http"

	"github.com/gorilla/mux"

	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// ShipmentPages are /shipments (an organization's shipments by status,
// newest first, with their warehouse; a shipment's lines and tracking)
// and its action: cancel a shipment.
type ShipmentPages struct {
	Common
	shipping *shippingapp.UseCases
}

// NewShipmentPages builds the group.
func NewShipmentPages(c Common, shipping *shippingapp.UseCases) *ShipmentPages {
	return &ShipmentPages{Common: c, shipping: shipping}
}

// Register implements Routes.
func (p *ShipmentPages) Register(r *mux.Router, g Guard) {
	r.Handle("/shipments", g.Page(operator.Viewer, p.list)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/shipments/cancel", g.Action(operator.Ops, audit.ShipmentsCancel, p.cancel)).Methods(http.MethodPost)
}

// shipmentsView is what /shipments shows.
type shipmentsView struct {
	Org       string
	Status    string
	Statuses  []shipping.ShipmentStatus
	Shipments []*shipping.Shipment
	Pager     Pager
	Shipment  *shipping.Shipment // ?id=: one shipment
	Movements []shippingports.StockMovement
}

const shipmentsTitle = "Shipments"

func (p *ShipmentPages) list(w http.ResponseWriter, r *http.Request) {
	org, ok := p.organization(w, r, shipmentsTitle)
	if !ok {
		return
	}
	q := r.URL.Query()
	v := shipmentsView{Org: org.ID, Status: q.Get("status"), Statuses: shipping.ShipmentStatuses}
	if id := q.Get("id"); id != "" {
		if !domain.ValidID(id) {
			p.pageError(w, r, shipmentsTitle, fieldError("id", "is not a shipment ID"))
			return
		}
		s, err := p.shipping.GetShipment.Handle(r.Context(), shippingapp.GetShipment{OrganizationID: org.ID, ShipmentID: id})
		if err != nil {
			p.pageError(w, r, shipmentsTitle, err)
			return
		}
		moves, err := p.shipping.ListStockMovements.Handle(r.Context(), shippingapp.ListStockMovements{
			Query: shippingports.StockMovementQuery{OrganizationID: org.ID, ShipmentID: id}, Page: ports.Page{Take: listTake},
		})
		if err != nil {
			p.pageError(w, r, shipmentsTitle, err)
			return
		}
		v.Shipment, v.Movements = s, moves.Items
		p.Views.Render(w, r, http.StatusOK, "shipment", v)
		return
	}
	var status shipping.ShipmentStatus
	if v.Status != "" {
		st, err := shipping.ParseShipmentStatus(v.Status)
		if err != nil {
			p.pageError(w, r, shipmentsTitle, fieldError("status", "is not a shipment status"))
			return
		}
		status = st
	}
	page, err := readPage(r)
	if err != nil {
		p.pageError(w, r, shipmentsTitle, err)
		return
	}
	res, err := p.shipping.ListShipments.Handle(r.Context(), shippingapp.ListShipments{OrganizationID: org.ID, Status: status, Page: page})
	if err != nil {
		p.pageError(w, r, shipmentsTitle, err)
		return
	}
	v.Shipments, v.Pager = res.Items, pager(r, page, res.More)
	p.Views.Render(w, r, http.StatusOK, "shipments", v)
}
