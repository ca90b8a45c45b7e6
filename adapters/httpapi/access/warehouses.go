package access

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	"github.com/acme3pl/fulfillment/domain"
)

// WarehouseDTO is the Warehouse of api/openapi.yaml: every field always present.
type WarehouseDTO struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Description *string    `json:"description"`
	Address     AddressDTO `json:"address"`
	Contact     ContactDTO `json:"contact"`
	Tags        []string   `json:"tags"`
}

// AddressDTO is the Address of a warehouse.
type AddressDTO struct {
	Name        string `json:"name"`
	Line1       string `json:"line1"`
	Line2       string `json:"line2"`
	District    string `json:"district"`
	City        string `json:"city"`
	State       string `json:"state"`
	CountryCode string `json:"countryCode"`
	PostalCode  string `json:"postalCode"`
}

// ContactDTO is the Contact of a warehouse.
type ContactDTO struct {
	Name        string `json:"name"`
	Email       string `json:"email"`
	PhoneNumber string `json:"phoneNumber"`
	Fax         string `json:"fax"`
}

func warehouseDTO(w domain.Warehouse) WarehouseDTO {
	tags := w.Tags
	if tags == nil {
		tags = []string{}
	}
	a, c := w.Address, w.Contact
	return WarehouseDTO{
		ID: w.ID, Name: w.Name, Description: w.Description, Tags: tags,
		Address: AddressDTO{Name: a.Name, Line1: a.Line1, Line2: a.Line2, District: a.District, City: a.City,
			State: a.State, CountryCode: a.CountryCode, PostalCode: a.PostalCode},
		Contact: ContactDTO{Name: c.Name, Email: c.Email, PhoneNumber: c.PhoneNumber, Fax: c.Fax},
	}
}

// Warehouses serves GET /v0/warehouses.
type Warehouses struct {
	httpapi.Group[accessapp.UseCases]
}

// NewWarehouses builds the warehouse routes.
func NewWarehouses(app *accessapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper) *Warehouses {
	return &Warehouses{httpapi.NewGroup(app, auth, errs, nil)}
}

// Register implements Routes.
func (h *Warehouses) Register(r *mux.Router) {
	r.Handle("/v0/warehouses", h.Auth.RequireScope(domain.ScopeLocations, h.list)).Methods(http.MethodGet)
}

func (h *Warehouses) list(w http.ResponseWriter, r *http.Request) {
	page, err := httpapi.ParsePage(r.URL.Query())
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	org := httpapi.PrincipalFrom(r.Context()).OrganizationID
	res, err := h.App.ListWarehouses.Handle(r.Context(), accessapp.ListWarehouses{OrganizationID: org, Page: page})
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	httpapi.WritePage(w, r, page, res, warehouseDTO)
}
