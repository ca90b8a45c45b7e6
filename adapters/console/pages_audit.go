package console

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/operator"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// AuditPages is /audit: the audit log of the operators' actions, newest
// first, filtered by organization, actor and action.
type AuditPages struct {
	Common
}

// NewAuditPages builds the group.
func NewAuditPages(c Common) *AuditPages { return &AuditPages{Common: c} }

// Register implements Routes.
func (p *AuditPages) Register(r *mux.Router, g Guard) {
	r.Handle("/audit", g.Page(operator.Viewer, p.page)).Methods(http.MethodGet, http.MethodHead)
}

// auditView is what /audit shows.
type auditView struct {
	Org, Actor, Action string
	Actions            []audit.Action
	Records            []audit.Record
	Pager              Pager
}

func (p *AuditPages) page(w http.ResponseWriter, r *http.Request) {
	const title = "Audit log"
	q := r.URL.Query()
	v := auditView{Org: q.Get("org"), Actor: strings.TrimSpace(q.Get("actor")), Action: q.Get("action"), Actions: audit.Actions}
	switch {
	case v.Org != "" && !domain.ValidID(v.Org):
		p.pageError(w, r, title, fieldError("org", "is not an organization ID"))
		return
	case v.Action != "" && !audit.Action(v.Action).Valid():
		p.pageError(w, r, title, fieldError("action", "is not an action of the audit log"))
		return
	case len(v.Actor) > 256:
		p.pageError(w, r, title, fieldError("actor", "is longer than 256 characters"))
		return
	}
	page, err := readPage(r)
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	res, err := p.App.ListAuditPage.Handle(r.Context(), application.ListAuditPage{
		Query: auditports.Query{OrganizationID: v.Org, Actor: v.Actor, Action: audit.Action(v.Action)}, Page: page,
	})
	if err != nil {
		p.pageError(w, r, title, err)
		return
	}
	v.Records, v.Pager = res.Items, pager(r, page, res.More)
	p.Views.Render(w, r, http.StatusOK, "audit", v)
}
