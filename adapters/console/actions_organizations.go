package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/acme3pl/fulfillment/application"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	"github.com/acme3pl/fulfillment/domain"
)

// setLimit sets an organization's own rate limit of the API (`orgs limit
// --rate R [--burst B]`), or, with the rate "default" (or empty), gives it
// the default limit again (`orgs limit --default`).
func (p *OrganizationPages) setLimit(w http.ResponseWriter, r *http.Request) {
	const title = "Set an organization's rate limit"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/organizations", err)
		return
	}
	back := backTo("/organizations", org)
	rate, burstText := strings.TrimSpace(r.PostFormValue("rate")), strings.TrimSpace(r.PostFormValue("burst"))
	principal, _ := PrincipalFrom(r.Context())
	c := application.SetOrganizationLimit{OrganizationID: org, Actor: principal.Actor()}
	said := "the default limit"
	if rate != "" && rate != "default" {
		burst := 0
		if burstText != "" {
			// A burst given is 1 or more: 0 is not "the default" (leave it
			// empty for that).
			n, err := strconv.Atoi(burstText)
			if err != nil || n < 1 {
				p.failed(w, r, title, back, fieldError("burst", "is not a whole number of 1 or more (leave it empty for twice the rate's count)"))
				return
			}
			burst = n
		}
		limit, err := domain.ParseRateLimit(rate, burst)
		if err != nil {
			p.failed(w, r, title, back, fieldError("rate", "is not a rate such as 50/s, 600/m or 10000/h ("+err.Error()+")"))
			return
		}
		c.Limit, said = &limit, limit.String()
	} else if burstText != "" {
		p.failed(w, r, title, back, fieldError("burst", "is given without a rate"))
		return
	}
	if _, err := p.App.SetOrganizationLimit.Handle(r.Context(), c); err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	p.outcome(w, r, Outcome{Title: title, Done: true, Back: back, BackLabel: "Back to " + org,
		Message: "Every replica applies it within a second.",
		Facts:   []Fact{{Label: "Organization", Value: org}, {Label: "Limit", Value: said, ID: "limit-now"}}})
}

// readScopes reads the scopes field: one value per checkbox, or names
// separated by commas; at least one, each a scope of domain.Scopes.
func readScopes(r *http.Request) ([]domain.Scope, error) {
	scopes, err := domain.ParseScopeList(strings.Join(r.PostForm["scopes"], ","))
	switch {
	case errors.Is(err, domain.ErrNoScope):
		return nil, fieldError("scopes", "needs at least one of locations, invoices, shipments, inventory")
	case err != nil:
		return nil, fieldError("scopes", "holds a name that is not a scope ("+err.Error()+")")
	}
	return scopes, nil
}

// createKey creates an API key of the organization (`apikey create`) and
// shows its secret, once.
func (p *OrganizationPages) createKey(w http.ResponseWriter, r *http.Request) {
	const title = "Create an API key"
	org, err := formOrg(r)
	if err != nil {
		p.failed(w, r, title, "/organizations", err)
		return
	}
	back := backTo("/organizations", org)
	scopes, err := readScopes(r)
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	principal, _ := PrincipalFrom(r.Context())
	name := strings.TrimSpace(r.PostFormValue("name"))
	plain, err := p.access.CreateAPIKey.Handle(r.Context(), accessapp.CreateAPIKey{OrganizationID: org, Name: name, Scopes: scopes,
		Actor: principal.Actor()})
	if err != nil {
		p.failed(w, r, title, back, err)
		return
	}
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	p.outcome(w, r, Outcome{Title: title, Done: true, Back: back, BackLabel: "Back to " + org, Secret: plain,
		Message: "The key was created. Give it to the organization now.",
		Facts:   []Fact{{Label: "Organization", Value: org}, {Label: "Name", Value: name}, {Label: "Scopes", Value: strings.Join(names, ", ")}}})
}

// revokeKey revokes an API key (`apikey revoke`): it stops working at once;
// a key revoked before stays revoked.
func (p *OrganizationPages) revokeKey(w http.ResponseWriter, r *http.Request) {
	const title = "Revoke an API key"
	id := r.PostFormValue("keyId")
	if !domain.ValidID(id) {
		p.failed(w, r, title, "/organizations", fieldError("keyId", "is not an API key ID"))
		return
	}
	principal, _ := PrincipalFrom(r.Context())
	if _, err := p.access.RevokeAPIKey.Handle(r.Context(), accessapp.RevokeAPIKey{KeyID: id, Actor: principal.Actor()}); err != nil {
		p.failed(w, r, title, "/organizations", err)
		return
	}
	p.outcome(w, r, Outcome{Title: title, Done: true, Back: "/organizations", BackLabel: "Back to the organizations",
		Message: "The key is revoked: requests with it are refused from now on.",
		Facts:   []Fact{{Label: "API key", Value: id, ID: "revoked-key"}}})
}
