package console

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/operator"
	"github.com/acme3pl/fulfillment/domain/shipping"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// InventoryPages is /inventory: per organization, each product's or
// carton's on hand, reserved and available at each warehouse, and an
// item's ledger (?item=ID).
type InventoryPages struct {
	Common
	shipping *shippingapp.UseCases
}

// NewInventoryPages builds the group.
func NewInventoryPages(c Common, shipping *shippingapp.UseCases) *InventoryPages {
	return &InventoryPages{Common: c, shipping: shipping}
}

// Register implements Routes.
func (p *InventoryPages) Register(r *mux.Router, g Guard) {
	r.Handle("/inventory", g.Page(operator.Viewer, p.page)).Methods(http.MethodGet, http.MethodHead)
}

// inventoryView is what /inventory shows.
type inventoryView struct {
	Org, Kind, SKU string
	Items          []shippingports.ItemStock
	Pager          Pager
	// Item is the item whose ledger is shown (?item=).
	Item      string
	Movements []shippingports.StockMovement
}

func (p *InventoryPages) page(w http.ResponseWriter, r *http.Request) {
	const title = "Inventory"
	org, ok := p.organization(w, r, title)
	if !ok {
		return
	}
	q := r.URL.Query()
	v := inventoryView{Org: org.ID, Kind: q.Get("kind"), SKU: strings.TrimSpace(q.Get("sku")), Item: q.Get("item")}
	page, err := readPage(r)
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	if v.Item != "" {
		if !domain.ValidID(v.Item) {
			p.pageError(w, r, title, fieldError("item", "is not a product or carton ID"))
			return
		}
		res, err := p.shipping.ListStockMovements.Handle(r.Context(), shippingapp.ListStockMovements{
			Query: shippingports.StockMovementQuery{OrganizationID: org.ID, ItemID: v.Item}, Page: page,
		})
		if err != nil {
			p.pageError(w, r, title, err)
			return
		}
		v.Movements, v.Pager = res.Items, pager(r, page, res.More)
		p.Views.Render(w, r, http.StatusOK, "ledger", v)
		return
	}
	kind := shipping.KindProduct
	switch v.Kind {
	case "", string(shipping.KindProduct):
		v.Kind = string(shipping.KindProduct)
	case string(shipping.KindCarton):
		kind = shipping.KindCarton
	default:
		p.pageError(w, r, title, fieldError("kind", "must be product or carton"))
		return
	}
	res, err := p.shipping.ListStock.Handle(r.Context(), shippingapp.ListStock{OrganizationID: org.ID, Kind: kind, SKU: v.SKU, Page: page})
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	v.Items, v.Pager = res.Items, pager(r, page, res.More)
	p.Views.Render(w, r, http.StatusOK, "inventory", v)
}
