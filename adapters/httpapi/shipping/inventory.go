package shipping

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// InventoryItemDTO is a product or carton with its stock per warehouse.
type InventoryItemDTO struct {
	ID    string          `json:"id"`
	SKU   string          `json:"sku"`
	Name  string          `json:"name"`
	Stock []StockLevelDTO `json:"stock"`
}

// StockLevelDTO is an item's stock at one warehouse. available is onHand −
// reserved; for products it is negative when pending Pick & Pack shipments
// hold more than is on hand (a backorder).
type StockLevelDTO struct {
	Warehouse apiview.WarehouseRef `json:"warehouse"`
	OnHand    int64                `json:"onHand"`
	Reserved  int64                `json:"reserved"`
	Available int64                `json:"available"`
}

// Inventory serves GET /v0/products and GET /v0/cartons (scope inventory).
type Inventory struct {
	httpapi.Group[shippingapp.UseCases]
}

// NewInventory builds the inventory routes.
func NewInventory(app *shippingapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper) *Inventory {
	return &Inventory{httpapi.NewGroup(app, auth, errs, nil)}
}

// Register implements Routes.
func (h *Inventory) Register(r *mux.Router) {
	r.Handle("/v0/products", h.Auth.RequireScope(domain.ScopeInventory, h.lister(shipping.KindProduct))).Methods(http.MethodGet)
	r.Handle("/v0/cartons", h.Auth.RequireScope(domain.ScopeInventory, h.lister(shipping.KindCarton))).Methods(http.MethodGet)
}

func (h *Inventory) lister(kind shipping.ItemKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page, err := httpapi.ParsePage(q)
		if err != nil {
			h.Errors.Write(w, r, err)
			return
		}
		var sku string
		if v, ok := q["sku"]; ok {
			sku = httpapi.Last(v)
		}
		org := httpapi.PrincipalFrom(r.Context()).OrganizationID
		res, err := h.App.ListStock.Handle(r.Context(), shippingapp.ListStock{OrganizationID: org, Kind: kind, SKU: sku, Page: page})
		if err != nil {
			h.Errors.Write(w, r, err)
			return
		}
		httpapi.WritePage(w, r, page, res, inventoryItemDTO)
	}
}

func inventoryItemDTO(it shippingports.ItemStock) InventoryItemDTO {
	levels := make([]StockLevelDTO, len(it.Levels))
	for j, l := range it.Levels {
		levels[j] = StockLevelDTO{
			Warehouse: apiview.WarehouseRef{ID: l.Warehouse.ID, Name: l.Warehouse.Name},
			OnHand:    l.OnHand, Reserved: l.Reserved, Available: l.Available(),
		}
	}
	return InventoryItemDTO{ID: it.Item.ID, SKU: it.Item.SKU, Name: it.Item.Name, Stock: levels}
}
