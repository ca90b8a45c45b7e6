package httpapi

import (
	"encoding/json"
	"fmt"
	"strconv"

	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The shipment routes' bodies: the shipment of every answer, and the body of
// a draft, mapped to the use case's command and nothing more.

// WarehouseRefDTO is the short warehouse object carried by shipments and
// stock levels.
type WarehouseRefDTO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ShipmentDTO is the Shipment of api/openapi.yaml. A Pick & Pack shipment carries
// `items` and no `cartons` member; an SPD shipment carries `cartons` and no
// `items` member (every shipment has at least one line, so the member of its
// kind is never empty).
type ShipmentDTO struct {
	ID               string              `json:"id"`
	Kind             string              `json:"kind"`
	Status           string              `json:"status"`
	Warehouse        WarehouseRefDTO     `json:"warehouse"`
	ShippingName     string              `json:"shippingName"`
	ShippingCompany  string              `json:"shippingCompany"`
	ShippingAddress1 string              `json:"shippingAddress1"`
	ShippingAddress2 string              `json:"shippingAddress2"`
	ShippingCity     string              `json:"shippingCity"`
	ShippingState    string              `json:"shippingState"`
	ShippingZip      string              `json:"shippingZip"`
	ShippingCountry  string              `json:"shippingCountry"`
	ShippingPhone    string              `json:"shippingPhone"`
	Notes            string              `json:"notes"`
	Items            []ShipmentItemDTO   `json:"items,omitempty"`
	Cartons          []ShipmentCartonDTO `json:"cartons,omitempty"`
	Source           *ShipmentSourceDTO  `json:"source"`
	Test             bool                `json:"test"`
	CreatedAt        string              `json:"createdAt"`
	UpdatedAt        string              `json:"updatedAt"`
	SubmittedAt      *string             `json:"submittedAt"`
	ShippedAt        *string             `json:"shippedAt"`
	Tracking         *TrackingDTO        `json:"tracking"`
}

// TrackingDTO is a shipped shipment's carrier and tracking number.
type TrackingDTO struct {
	Carrier string `json:"carrier"`
	Number  string `json:"number"`
}

// ShipmentItemDTO is a product line of a Pick & Pack shipment.
type ShipmentItemDTO struct {
	ProductID string `json:"productId"`
	SKU       string `json:"sku"`
	Quantity  int64  `json:"quantity"`
}

// ShipmentCartonDTO is a carton line of an SPD shipment.
type ShipmentCartonDTO struct {
	CartonID string `json:"cartonId"`
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

// ShipmentSourceDTO tells which storefront order made a shipment. Storefront
// IDs are decimal strings: they exceed JavaScript's safe integers.
type ShipmentSourceDTO struct {
	Type        string  `json:"type"`
	OrderID     string  `json:"orderId"`
	OrderNumber *string `json:"orderNumber"` // null when the order had none
}

// toShipmentDTO is the one conversion of a shipment for responses; the
// order intake's responses use it too.
func toShipmentDTO(s *shipping.Shipment) ShipmentDTO {
	a := s.Address()
	out := ShipmentDTO{
		ID: s.ID(), Kind: string(s.Kind()), Status: string(s.Status()),
		Warehouse:    WarehouseRefDTO{ID: s.Warehouse().ID, Name: s.Warehouse().Name},
		ShippingName: a.Name, ShippingCompany: a.Company, ShippingAddress1: a.Address1, ShippingAddress2: a.Address2,
		ShippingCity: a.City, ShippingState: a.State, ShippingZip: a.Zip, ShippingCountry: a.Country, ShippingPhone: a.Phone,
		Notes: s.Notes(), Test: s.Test(),
		CreatedAt: FormatTime(s.CreatedAt()), UpdatedAt: FormatTime(s.UpdatedAt()), SubmittedAt: FormatTimePtr(s.SubmittedAt()),
		ShippedAt: FormatTimePtr(s.ShippedAt()),
	}
	if t := s.Tracking(); t != nil {
		out.Tracking = &TrackingDTO{Carrier: t.Carrier, Number: t.Number}
	}
	lines := s.Lines()
	if s.Kind() == shipping.SPD {
		out.Cartons = make([]ShipmentCartonDTO, len(lines))
		for i, l := range lines {
			out.Cartons[i] = ShipmentCartonDTO{CartonID: l.ItemID, SKU: l.SKU, Quantity: l.Quantity}
		}
	} else {
		out.Items = make([]ShipmentItemDTO, len(lines))
		for i, l := range lines {
			out.Items[i] = ShipmentItemDTO{ProductID: l.ItemID, SKU: l.SKU, Quantity: l.Quantity}
		}
	}
	if src := s.Source(); src != nil {
		dto := &ShipmentSourceDTO{Type: src.Type, OrderID: strconv.FormatInt(src.OrderID, 10)}
		if src.OrderNumber != 0 {
			n := strconv.FormatInt(src.OrderNumber, 10)
			dto.OrderNumber = &n
		}
		out.Source = dto
	}
	return out
}

// shortageDTO is one short item of an insufficient_stock problem: a
// carton of an SPD submission (422), or a product or carton of a ship
// (409), whose available count is then its on-hand count.
type shortageDTO struct {
	ProductID string `json:"productId,omitempty"`
	CartonID  string `json:"cartonId,omitempty"`
	SKU       string `json:"sku"`
	Requested int64  `json:"requested"`
	Available int64  `json:"available"`
}

func shortageDTOs(kind shipping.ItemKind, items []shipping.StockShortage) []shortageDTO {
	out := make([]shortageDTO, len(items))
	for i, it := range items {
		out[i] = shortageDTO{SKU: it.SKU, Requested: it.Requested, Available: it.Available}
		if kind == shipping.KindCarton {
			out[i].CartonID = it.ItemID
		} else {
			out[i].ProductID = it.ItemID
		}
	}
	return out
}

// draftBody is the body of both draft kinds: a Pick & Pack draft has
// items, an SPD draft cartons, and the member of the other kind is refused
// like any unknown member. The shipping members repeat ShipmentDTO's rather
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

func (l productLineBody) line() shipping.ShipmentLine {
	quantity, _ := jsonInteger(l.Quantity)
	return shipping.ShipmentLine{ItemID: l.ProductID, Quantity: quantity}
}

func (l cartonLineBody) line() shipping.ShipmentLine {
	quantity, _ := jsonInteger(l.Quantity)
	return shipping.ShipmentLine{ItemID: l.CartonID, Quantity: quantity}
}

// decodeLines decodes each line of a draft's lines member strictly, naming
// a line that is not an object of its kind as member[i] or
// member[i].field. An absent or null member is no lines.
func decodeLines[L interface{ line() shipping.ShipmentLine }](member string, raws *[]json.RawMessage) ([]shipping.ShipmentLine, error) {
	if raws == nil {
		return nil, nil
	}
	lines := make([]shipping.ShipmentLine, len(*raws))
	for i, raw := range *raws {
		at := fmt.Sprintf("%s[%d]", member, i)
		var l L
		if err := strictUnmarshal(raw, &l); err != nil {
			return nil, jsonError(at, err)
		}
		if string(raw) == "null" {
			return nil, domain.Invalid(at, "must be an object")
		}
		lines[i] = l.line()
	}
	return lines, nil
}
