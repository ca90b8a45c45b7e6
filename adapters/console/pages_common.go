package console

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
)

// What the groups of pages share: the views, the clock, the organization
// picker, the pages of a list and the page of an action's outcome.
//
// Every page is a GET; every action a POST that answers its outcome page
// directly: 200 with what it did (or "unchanged" when a repeat changed
// nothing), or the error in plain words with its code and a 4xx status (5xx
// only for the service's own faults). The outcome page links back to the
// page the form was on.

// Common is what every group of pages is built with.
type Common struct {
	Views *Views
	Clock ports.Clock
	// App lists the organizations for the picker.
	App *application.UseCases
}

// listTake is how many rows a list page shows.
const listTake = 50

// Pager is a list's links to the previous and the next page.
type Pager struct {
	Prev, Next template.URL
}

// readPage reads ?skip= of a list page.
func readPage(r *http.Request) (ports.Page, error) {
	p := ports.Page{Take: listTake}
	if s := r.URL.Query().Get("skip"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1_000_000 {
			return p, fieldError("skip", "must be a whole number from 0")
		}
		p.Skip = n
	}
	return p, nil
}

// pager links the pages before and after p, keeping the request's other
// query parameters.
func pager(r *http.Request, p ports.Page, more bool) Pager {
	link := func(skip int) template.URL {
		q := r.URL.Query()
		if skip > 0 {
			q.Set("skip", strconv.Itoa(skip))
		} else {
			q.Del("skip")
		}
		u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		return template.URL(u.String()) //nolint:gosec // a path of ours and an encoded query
	}
	var out Pager
	if p.Skip > 0 {
		out.Prev = link(max(p.Skip-p.Take, 0))
	}
	if more {
		out.Next = link(p.Skip + p.Take)
	}
	return out
}

// Failure is an error as a page shows it: plain words, the error's code,
// and the status of the answer.
type Failure struct {
	Status  int
	Code    string
	Message string
}

// errField is a form field or a query parameter that is malformed.
type errField struct{ field, problem string }

func (e errField) Error() string { return e.field + ": " + e.problem }

func fieldError(field, problem string) error { return errField{field: field, problem: problem} }

// failureOf says err in plain words. A malformed field is 400; an unknown
// record 404; a record whose state refuses it 409; a request the rules
// refuse 422; the service's own faults 503 or 500, without their detail.
func failureOf(err error) Failure {
	var fe errField
	if errors.As(err, &fe) {
		return Failure{Status: http.StatusBadRequest, Code: "invalid_parameter",
			Message: fmt.Sprintf("The field %q %s.", fe.field, fe.problem)}
	}
	code := string(application.AuditOutcome(err))
	f := Failure{Code: code, Message: err.Error()}
	switch {
	case errors.Is(err, billing.ErrReferenceConflict):
		f.Status = http.StatusConflict
		f.Message = "This reference was used before for a charge with other content; nothing changed. Use a new reference. (" + err.Error() + ")"
		return f
	case errors.Is(err, billing.ErrPastBounds):
		f.Status = http.StatusUnprocessableEntity
		return f
	}
	switch k := application.KindOf(err); k {
	case domain.KindInvalid:
		f.Status = http.StatusBadRequest
	case domain.KindNotFound:
		f.Status = http.StatusNotFound
	case domain.KindInvalidState, domain.KindConflict, domain.KindPayloadNotKept,
		domain.KindReferenceConflict, domain.KindOnHandShort:
		f.Status = http.StatusConflict
	case domain.KindShed, domain.KindTimeout, domain.KindUnavailable:
		f.Status, f.Message = http.StatusServiceUnavailable, "The service is busy or cannot reach its database; nothing may have changed. Try again in a moment."
	case domain.KindInternal, domain.KindClientGone:
		f.Status, f.Message = http.StatusInternalServerError, "Something went wrong in the service; it was logged. Try again, or ask the on-call engineer."
	default:
		f.Status = http.StatusUnprocessableEntity
	}
	return f
}

// Fact is one thing an outcome page states, with an element ID a test or a
// person can find it by.
type Fact struct {
	Label, Value, ID string
	// Link, when set, is where the value links.
	Link template.URL
}

// Outcome is the page an action answers.
type Outcome struct {
	Title string
	// Done: the action changed what it says; Unchanged: a repeat that
	// changed nothing; else Failure says why it did nothing.
	Done, Unchanged bool
	Message         string
	Facts           []Fact
	Failure         *Failure
	// Secret is shown once (an API key at its creation), with a warning.
	Secret string
	// Back is the page to go back to.
	Back      template.URL
	BackLabel string
}

// outcome renders an action's outcome page.
func (c Common) outcome(w http.ResponseWriter, r *http.Request, o Outcome) {
	status := http.StatusOK
	if o.Failure != nil {
		status = o.Failure.Status
	}
	c.Views.Render(w, r, status, "outcome", o)
}

// failed renders err as an action's outcome.
func (c Common) failed(w http.ResponseWriter, r *http.Request, title string, back template.URL, err error) {
	f := failureOf(err)
	c.outcome(w, r, Outcome{Title: title, Failure: &f, Back: back, BackLabel: "Back"})
}

// pageError renders a page that could not be read (a malformed parameter,
// an unknown organization) with its status.
func (c Common) pageError(w http.ResponseWriter, r *http.Request, title string, err error) {
	f := failureOf(err)
	c.Views.Render(w, r, f.Status, "problem", Outcome{Title: title, Failure: &f, Back: "/", BackLabel: "Today"})
}

// OrgPicker lists organizations to pick one for a page.
type OrgPicker struct {
	Action string // the page's path
	Orgs   []domain.Organization
	Pager  Pager
}

// orgOf reads ?org= of an organization page: "" when none is given (the
// page then shows the picker).
func orgOf(r *http.Request) (string, error) {
	org := r.URL.Query().Get("org")
	if org != "" && !domain.ValidID(org) {
		return "", fieldError("org", "is not an organization ID")
	}
	return org, nil
}

// picker renders the organization picker of the page at r's path.
func (c Common) picker(w http.ResponseWriter, r *http.Request, title string) {
	page, err := readPage(r)
	if err != nil {
		c.pageError(w, r, title, err)
		return
	}
	orgs, err := c.App.ListOrganizations.Handle(r.Context(), application.ListOrganizations{Page: page})
	if err != nil {
		c.pageError(w, r, title, err)
		return
	}
	c.Views.Render(w, r, http.StatusOK, "pick_org", struct {
		Title  string
		Picker OrgPicker
	}{title, OrgPicker{Action: r.URL.Path, Orgs: orgs.Items, Pager: pager(r, page, orgs.More)}})
}

// organization reads the organization a page is about, or renders its
// picker (no ?org=) or its error (a malformed or unknown one): ok false
// when the page is answered.
func (c Common) organization(w http.ResponseWriter, r *http.Request, title string) (domain.Organization, bool) {
	id, err := orgOf(r)
	if err != nil {
		c.pageError(w, r, title, err)
		return domain.Organization{}, false
	}
	if id == "" {
		c.picker(w, r, title)
		return domain.Organization{}, false
	}
	if _, err := c.App.CheckPrincipal.Handle(r.Context(), application.CheckPrincipal{OrganizationID: id}); err != nil {
		c.pageError(w, r, title, err)
		return domain.Organization{}, false
	}
	return domain.Organization{ID: id}, true
}

// formOrg reads the org field of an action's form.
func formOrg(r *http.Request) (string, error) {
	org := r.PostFormValue("org")
	if !domain.ValidID(org) {
		return "", fieldError("org", "is not an organization ID")
	}
	return org, nil
}

// backTo is a page's link with its organization.
func backTo(path, org string) template.URL {
	if org == "" {
		return template.URL(path) //nolint:gosec // our own path
	}
	return template.URL(path + "?org=" + url.QueryEscape(org)) //nolint:gosec // our path, an escaped ID
}

// execute renders page with data to out, unbuffered: a page streamed in
// parts (the replay of all failed orders).
func (v *Views) execute(out io.Writer, r *http.Request, page string, data any) error {
	t, ok := v.pages[page]
	if !ok {
		return fmt.Errorf("no page %s", page)
	}
	view := View{Path: r.URL.Path, Data: data}
	view.Principal, _ = PrincipalFrom(r.Context())
	return t.ExecuteTemplate(out, "layout.html", view)
}

// templateURLQuery is s escaped for a link's query.
func templateURLQuery(s string) template.URL {
	return template.URL(url.QueryEscape(s)) //nolint:gosec // escaped
}
