package console

import (
	"net/http"

	"github.com/acme3pl/fulfillment/application"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// cancel cancels a shipment as an operator (the API's cancel, recorded as
// shipments.cancel): its stock reserved is released.
func (p *ShipmentPages) cancel(w http.ResponseWriter, r *http.Request) {
	const title = "Cancel a shipment"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/shipments", err)
		return
	}
	id := r.PostFormValue("id")
	back := backTo("/shipments", org)
	if !domain.ValidID(id) {
		p.failed(w, r, title, back, fieldError("id", "is not a shipment ID"))
		return
	}
	back = back + "&id=" + templateURLQuery(id)
	before, err := p.shipping.GetShipment.Handle(r.Context(), shippingapp.GetShipment{OrganizationID: org, ShipmentID: id})
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	principal, _ := PrincipalFrom(r.Context())
	actor := principal.Actor()
	s, err := p.shipping.CancelShipment.Handle(r.Context(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: id, Operator: &actor})
	if err != nil && before.Status() == shipping.ShipmentCancelled && application.KindOf(err) == domain.KindInvalidState {
		// The same form again: the use case refused (and recorded) a
		// cancel of a cancelled shipment; for the person it is unchanged.
		s, err = before, nil
	}
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	o := Outcome{Title: title, Back: back, BackLabel: "Back to the shipment",
		Facts: []Fact{{Label: "Shipment", Value: s.ID(), ID: "cancel-shipment-id"}, {Label: "Status", Value: string(s.Status()), ID: "cancel-status"}}}
	if before.Status() == shipping.ShipmentCancelled {
		o.Unchanged, o.Message = true, "The shipment was cancelled already."
	} else {
		o.Done, o.Message = true, "The shipment was cancelled; its reserved stock is released."
	}
	p.outcome(w, r, o)
}
