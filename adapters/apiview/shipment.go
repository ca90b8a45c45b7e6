package apiview

import (
	"strconv"

	"github.com/acme3pl/fulfillment/domain/shipping"
)

// WarehouseRef is the short warehouse object carried by shipments and
// stock levels.
type WarehouseRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Shipment is the Shipment of api/openapi.yaml. A Pick & Pack shipment carries
// `items` and no `cartons` member; an SPD shipment carries `cartons` and no
// `items` member (every shipment has at least one line, so the member of its
// kind is never empty).
type Shipment struct {
	ID               string           `json:"id"`
	Kind             string           `json:"kind"`
	Status           string           `json:"status"`
	Warehouse        WarehouseRef     `json:"warehouse"`
	ShippingName     string           `json:"shippingName"`
	ShippingCompany  string           `json:"shippingCompany"`
	ShippingAddress1 string           `json:"shippingAddress1"`
	ShippingAddress2 string           `json:"shippingAddress2"`
	ShippingCity     string           `json:"shippingCity"`
	ShippingState    string           `json:"shippingState"`
	ShippingZip      string           `json:"shippingZip"`
	ShippingCountry  string           `json:"shippingCountry"`
	ShippingPhone    string           `json:"shippingPhone"`
	Notes            string           `json:"notes"`
	Items            []ShipmentItem   `json:"items,omitempty"`
	Cartons          []ShipmentCarton `json:"cartons,omitempty"`
	Source           *ShipmentSource  `json:"source"`
	Test             bool             `json:"test"`
	CreatedAt        string           `json:"createdAt"`
	UpdatedAt        string           `json:"updatedAt"`
	SubmittedAt      *string          `json:"submittedAt"`
	ShippedAt        *string          `json:"shippedAt"`
	Tracking         *Tracking        `json:"tracking"`
}

// Tracking is a shipped shipment's carrier and tracking number.
type Tracking struct {
	Carrier string `json:"carrier"`
	Number  string `json:"number"`
}

// ShipmentItem is a product line of a Pick & Pack shipment.
type ShipmentItem struct {
	ProductID string `json:"productId"`
	SKU       string `json:"sku"`
	Quantity  int64  `json:"quantity"`
}

// ShipmentCarton is a carton line of an SPD shipment.
type ShipmentCarton struct {
	CartonID string `json:"cartonId"`
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

// ShipmentSource tells which storefront order made a shipment. Storefront
// IDs are decimal strings: they exceed JavaScript's safe integers.
type ShipmentSource struct {
	Type        string  `json:"type"`
	OrderID     string  `json:"orderId"`
	OrderNumber *string `json:"orderNumber"` // null when the order had none
}

// ShipmentOf is the one conversion of a shipment: every answer that holds
// one, and its events' data.
func ShipmentOf(s *shipping.Shipment) Shipment {
	a := s.Address()
	out := Shipment{
		ID: s.ID(), Kind: string(s.Kind()), Status: string(s.Status()),
		Warehouse:    WarehouseRef{ID: s.Warehouse().ID, Name: s.Warehouse().Name},
		ShippingName: a.Name, ShippingCompany: a.Company, ShippingAddress1: a.Address1, ShippingAddress2: a.Address2,
		ShippingCity: a.City, ShippingState: a.State, ShippingZip: a.Zip, ShippingCountry: a.Country, ShippingPhone: a.Phone,
		Notes: s.Notes(), Test: s.Test(),
		CreatedAt: FormatTime(s.CreatedAt()), UpdatedAt: FormatTime(s.UpdatedAt()), SubmittedAt: FormatTimePtr(s.SubmittedAt()),
		ShippedAt: FormatTimePtr(s.ShippedAt()),
	}
	if t := s.Tracking(); t != nil {
		out.Tracking = &Tracking{Carrier: t.Carrier, Number: t.Number}
	}
	lines := s.Lines()
	if s.Kind() == shipping.SPD {
		out.Cartons = make([]ShipmentCarton, len(lines))
		for i, l := range lines {
			out.Cartons[i] = ShipmentCarton{CartonID: l.ItemID, SKU: l.SKU, Quantity: l.Quantity}
		}
	} else {
		out.Items = make([]ShipmentItem, len(lines))
		for i, l := range lines {
			out.Items[i] = ShipmentItem{ProductID: l.ItemID, SKU: l.SKU, Quantity: l.Quantity}
		}
	}
	if src := s.Source(); src != nil {
		dto := &ShipmentSource{Type: src.Type, OrderID: strconv.FormatInt(src.OrderID, 10)}
		if src.OrderNumber != 0 {
			n := strconv.FormatInt(src.OrderNumber, 10)
			dto.OrderNumber = &n
		}
		out.Source = dto
	}
	return out
}
