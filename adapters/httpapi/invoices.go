package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// InvoiceDTO is the Invoice of api/openapi.yaml: every field always present.
// deletedAt is always null, since deleted invoices are never served.
type InvoiceDTO struct {
	ID          string           `json:"id"`
	Status      string           `json:"status"`
	Name        string           `json:"name"`
	Notes       string           `json:"notes"`
	DueDate     string           `json:"dueDate"`
	Items       []InvoiceItemDTO `json:"items"`
	TotalAmount int64            `json:"totalAmount"`
	Currency    string           `json:"currency"`
	CreatedAt   string           `json:"createdAt"`
	UpdatedAt   string           `json:"updatedAt"`
	DeletedAt   *string          `json:"deletedAt"`
}

// InvoiceItemDTO is the invoice item of api/openapi.yaml. Quantity is a JSON number
// written from the fixed-point quantity (62, 1.5, 0.125), never through
// float64.
type InvoiceItemDTO struct {
	ID          string      `json:"id"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Quantity    json.Number `json:"quantity"`
	UnitCost    int64       `json:"unitCost"`
	TotalCost   int64       `json:"totalCost"`
}

// toInvoiceDTO is inv as the API shows it.
func toInvoiceDTO(inv *invoicing.Invoice) InvoiceDTO {
	items := inv.Items()
	out := InvoiceDTO{
		ID: inv.ID(), Status: string(inv.Status()), Name: inv.Name(), Notes: inv.Notes(),
		DueDate: FormatTime(inv.DueDate()), Items: make([]InvoiceItemDTO, len(items)),
		TotalAmount: inv.TotalAmount(), Currency: inv.Currency(),
		CreatedAt: FormatTime(inv.CreatedAt()), UpdatedAt: FormatTime(inv.UpdatedAt()),
		DeletedAt: FormatTimePtr(inv.DeletedAt()),
	}
	for i, it := range items {
		out.Items[i] = InvoiceItemDTO{
			ID: it.ID(), Title: it.Title(), Description: it.Description(),
			Quantity: json.Number(it.Quantity().String()), UnitCost: it.UnitCost(), TotalCost: it.TotalCost(),
		}
	}
	return out
}

// Invoices serves GET /v0/invoices and GET /v0/invoices/{id}.
type Invoices struct {
	app    *invoicingapp.UseCases
	auth   Authenticator
	errors ErrorMapper
}

// NewInvoices builds the invoice routes.
func NewInvoices(app *invoicingapp.UseCases, auth Authenticator, errs ErrorMapper) *Invoices {
	return &Invoices{app: app, auth: auth, errors: errs}
}

// Register implements Routes.
func (h *Invoices) Register(r *mux.Router) {
	r.Handle("/v0/invoices", h.auth.RequireScope(domain.ScopeInvoices, h.list)).Methods(http.MethodGet)
	r.Handle("/v0/invoices/{id}", h.auth.RequireScope(domain.ScopeInvoices, h.get)).Methods(http.MethodGet)
}

// ListInvoicesQuery is the one place that reads the invoice list's query
// parameters into the use case's query: skip, take, status, sortBy,
// sortOrder and search, each with the parser of the rule's owner. A
// parameter that is present must hold an allowed value (an empty status,
// sortBy or sortOrder is refused too). Every invalid parameter is
// collected; the error names the first in that order.
func ListInvoicesQuery(q url.Values) (invoicingapp.ListInvoices, error) {
	p := readQuery(q)
	in := invoicingapp.ListInvoices{Page: p.page()}
	readParam(p, "status", invoicing.ParseVisibleInvoiceStatus, &in.Status)
	readParam(p, "sortBy", invoicingapp.ParseInvoiceSortBy, &in.SortBy)
	readParam(p, "sortOrder", invoicingapp.ParseInvoiceSortOrder, &in.Ascending)
	readParam(p, "search", invoicingapp.ParseInvoiceSearch, &in.Search)
	return in, p.err()
}

func (h *Invoices) list(w http.ResponseWriter, r *http.Request) {
	in, err := ListInvoicesQuery(r.URL.Query())
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	in.OrganizationID = PrincipalFrom(r.Context()).OrganizationID
	res, err := h.app.ListInvoices.Handle(r.Context(), in)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	SetNextLink(w, r, in.Page, res.More)
	out := make([]InvoiceDTO, len(res.Invoices))
	for i, inv := range res.Invoices {
		out[i] = toInvoiceDTO(inv)
	}
	WriteJSON(w, http.StatusOK, out)
}

func (h *Invoices) get(w http.ResponseWriter, r *http.Request) {
	in := invoicingapp.GetInvoice{OrganizationID: PrincipalFrom(r.Context()).OrganizationID, ID: mux.Vars(r)["id"]}
	inv, err := h.app.GetInvoice.Handle(r.Context(), in)
	if err != nil {
		h.errors.Write(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, toInvoiceDTO(inv))
}
