package console

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/application"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/operator"
)

// OrganizationPages are /organizations (the organizations, their rate
// limits and API keys — never a key's secret) and its actions: set a
// limit, create an API key (its secret shown once), revoke one.
type OrganizationPages struct {
	Common
	access *accessapp.UseCases
}

// NewOrganizationPages builds the group.
func NewOrganizationPages(c Common, access *accessapp.UseCases) *OrganizationPages {
	return &OrganizationPages{Common: c, access: access}
}

// Register implements Routes.
func (p *OrganizationPages) Register(r *mux.Router, g Guard) {
	r.Handle("/organizations", g.Page(operator.Viewer, p.page)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/organizations/limit", g.Action(operator.Admin, audit.OrgsLimit, p.setLimit)).Methods(http.MethodPost)
	r.Handle("/organizations/apikeys", g.Action(operator.Admin, audit.APIKeysCreate, p.createKey)).Methods(http.MethodPost)
	r.Handle("/organizations/apikeys/revoke", g.Action(operator.Admin, audit.APIKeysRevoke, p.revokeKey)).Methods(http.MethodPost)
}

// organizationsView is what /organizations shows: the list, or one
// organization (?org=) with its keys.
type organizationsView struct {
	Orgs   []domain.Organization
	Pager  Pager
	Org    *domain.Organization
	Keys   []domain.APIKey
	Scopes []domain.Scope
}

const organizationsTitle = "Organizations"

func (p *OrganizationPages) page(w http.ResponseWriter, r *http.Request) {
	id, err := orgOf(r)
	if err != nil {
		p.pageError(w, r, organizationsTitle, err)
		return
	}
	page, err := readPage(r)
	if err != nil {
		p.pageError(w, r, organizationsTitle, err)
		return
	}
	v := organizationsView{Scopes: domain.Scopes}
	if id == "" {
		orgs, err := p.App.ListOrganizations.Handle(r.Context(), application.ListOrganizations{Page: page})
		if err != nil {
			p.pageError(w, r, organizationsTitle, err)
			return
		}
		v.Orgs, v.Pager = orgs.Items, pager(r, page, orgs.More)
		p.Views.Render(w, r, http.StatusOK, "organizations", v)
		return
	}
	org, err := p.App.GetOrganization.Handle(r.Context(), application.GetOrganization{OrganizationID: id})
	if err != nil {
		p.pageError(w, r, organizationsTitle, err)
		return
	}
	keys, err := p.access.ListAPIKeys.Handle(r.Context(), accessapp.ListAPIKeys{OrganizationID: id})
	if err != nil {
		p.pageError(w, r, organizationsTitle, err)
		return
	}
	v.Org, v.Keys = &org, keys
	p.Views.Render(w, r, http.StatusOK, "organization", v)
}
