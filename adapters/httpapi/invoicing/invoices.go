package invoicing

import (
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// Invoices serves GET /v0/invoices and GET /v0/invoices/{id}.
type Invoices struct {
	httpapi.Group[invoicingapp.UseCases]
}

// NewInvoices builds the invoice routes.
func NewInvoices(app *invoicingapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper) *Invoices {
	return &Invoices{httpapi.NewGroup(app, auth, errs, nil)}
}

// Register implements Routes.
func (h *Invoices) Register(r *mux.Router) {
	r.Handle("/v0/invoices", h.Auth.RequireScope(domain.ScopeInvoices, h.list)).Methods(http.MethodGet)
	r.Handle("/v0/invoices/{id}", h.Auth.RequireScope(domain.ScopeInvoices, h.get)).Methods(http.MethodGet)
}

// ListInvoicesQuery is the one place that reads the invoice list's query
// parameters into the use case's query: skip, take, status, sortBy,
// sortOrder and search, each with the parser of the rule's owner. A
// parameter that is present must hold an allowed value (an empty status,
// sortBy or sortOrder is refused too). Every invalid parameter is
// collected; the error names the first in that order.
func ListInvoicesQuery(q url.Values) (invoicingapp.ListInvoices, error) {
	p := httpapi.ReadQuery(q)
	in := invoicingapp.ListInvoices{Page: p.Page()}
	httpapi.ReadParam(p, "status", invoicing.ParseVisibleInvoiceStatus, &in.Status)
	httpapi.ReadParam(p, "sortBy", invoicingapp.ParseInvoiceSortBy, &in.SortBy)
	httpapi.ReadParam(p, "sortOrder", invoicingapp.ParseInvoiceSortOrder, &in.Ascending)
	httpapi.ReadParam(p, "search", invoicingapp.ParseInvoiceSearch, &in.Search)
	return in, p.Err()
}

func (h *Invoices) list(w http.ResponseWriter, r *http.Request) {
	in, err := ListInvoicesQuery(r.URL.Query())
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	in.OrganizationID = httpapi.PrincipalFrom(r.Context()).OrganizationID
	res, err := h.App.ListInvoices.Handle(r.Context(), in)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	httpapi.WritePage(w, r, in.Page, res, apiview.InvoiceOf)
}

func (h *Invoices) get(w http.ResponseWriter, r *http.Request) {
	in := invoicingapp.GetInvoice{OrganizationID: httpapi.PrincipalFrom(r.Context()).OrganizationID, ID: mux.Vars(r)["id"]}
	inv, err := h.App.GetInvoice.Handle(r.Context(), in)
	if err != nil {
		h.Errors.Write(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, apiview.InvoiceOf(inv))
}
