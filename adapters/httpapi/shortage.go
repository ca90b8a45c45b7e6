package httpapi

import "github.com/acme3pl/fulfillment/domain/shipping"

// The shortages of a problem (ProblemFor): insufficient_stock carries them,
// whichever route answers it.

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
