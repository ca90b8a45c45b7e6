package shipping

import (
	"encoding/json"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The shipment routes' bodies (the shipment of every answer is
// apiview.Shipment): the body of a draft, mapped to the use case's command
// and nothing more.

// draftBody is the body of both draft kinds: a Pick & Pack draft has
// items, an SPD draft cartons, and the member of the other kind is refused
// like any unknown member. The shipping members repeat apiview.Shipment's rather
// than embed a struct shared with it: encoding/json names a type error in an
// embedded struct after the struct ("Fields.shippingCity"), and a 400 names
// the member itself.
type draftBody struct {
	WarehouseID      string             `json:"warehouseId"`
	ShippingName     string             `json:"shippingName"`
	ShippingCompany  string             `json:"shippingCompany"`
	ShippingAddress1 string             `json:"shippingAddress1"`
	ShippingAddress2 string             `json:"shippingAddress2"`
	ShippingCity     string             `json:"shippingCity"`
	ShippingState    string             `json:"shippingState"`
	ShippingZip      string             `json:"shippingZip"`
	ShippingCountry  string             `json:"shippingCountry"`
	ShippingPhone    string             `json:"shippingPhone"`
	Notes            string             `json:"notes"`
	Items            *[]json.RawMessage `json:"items"`
	Cartons          *[]json.RawMessage `json:"cartons"`
}

// command maps the body and its decoded lines to the use case's command;
// the domain validates them (shipping.NewShipment).
func (b draftBody) command(org string, kind shipping.ShipmentKind, lines []shipping.ShipmentLine) shippingapp.CreateShipment {
	return shippingapp.CreateShipment{
		OrganizationID: org, Kind: kind, WarehouseID: b.WarehouseID, Notes: b.Notes, Lines: lines,
		Address: shipping.Address{
			Name: b.ShippingName, Company: b.ShippingCompany, Address1: b.ShippingAddress1, Address2: b.ShippingAddress2,
			City: b.ShippingCity, State: b.ShippingState, Zip: b.ShippingZip, Country: b.ShippingCountry, Phone: b.ShippingPhone,
		},
	}
}

// lines decodes the lines of a draft of kind: items of a Pick & Pack draft,
// cartons of an SPD draft; the member of the other kind is refused.
func (b draftBody) lines(kind shipping.ShipmentKind) ([]shipping.ShipmentLine, error) {
	if kind == shipping.SPD {
		if b.Items != nil {
			return nil, domain.Invalid("items", "is not a member of an SPD draft")
		}
		return httpapi.DecodeLines[cartonLineBody, shipping.ShipmentLine]("cartons", b.Cartons)
	}
	if b.Cartons != nil {
		return nil, domain.Invalid("cartons", "is not a member of a Pick & Pack draft")
	}
	return httpapi.DecodeLines[productLineBody, shipping.ShipmentLine]("items", b.Items)
}

// productLineBody is a line of a Pick & Pack draft, cartonLineBody one of
// an SPD draft. A quantity that is not a JSON integer of 64 bits (absent,
// null, a string, a fraction, out of range) maps to 0, which the domain
// refuses as it refuses any quantity out of its bounds, in the order of its
// checks.
type (
	productLineBody struct {
		ProductID string          `json:"productId"`
		Quantity  json.RawMessage `json:"quantity"`
	}
	cartonLineBody struct {
		CartonID string          `json:"cartonId"`
		Quantity json.RawMessage `json:"quantity"`
	}
)

func (l productLineBody) Line() shipping.ShipmentLine {
	quantity, _ := httpapi.JSONInteger(l.Quantity)
	return shipping.ShipmentLine{ItemID: l.ProductID, Quantity: quantity}
}

func (l cartonLineBody) Line() shipping.ShipmentLine {
	quantity, _ := httpapi.JSONInteger(l.Quantity)
	return shipping.ShipmentLine{ItemID: l.CartonID, Quantity: quantity}
}
