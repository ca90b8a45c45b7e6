package console

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/acme3pl/fulfillment/application"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/operator"
)

// maxFormBytes bounds an action's form: the largest, a rate card's JSON,
// is a few kilobytes.
const maxFormBytes = 1 << 20

// SessionGuard is the Guard of the console: the session of the request's
// cookie (ResumeSession, which also moves its idle timeout) and its role.
type SessionGuard struct {
	resume application.Handler[operatorapp.ResumeSession, operator.Principal]
	record application.Handler[application.RecordOperatorAction, struct{}]
	views  *Views
	signIn string // where a request without a session is sent
	log    *slog.Logger
}

var _ Guard = (*SessionGuard)(nil)

// GuardParams are the guard's parts. OIDC tells whether a provider signs
// people in (a request without a session goes to /login, which starts
// its sign-in) or not (to /signin, which asks for a sign-in link).
type GuardParams struct {
	Sessions *operatorapp.UseCases
	Record   application.Handler[application.RecordOperatorAction, struct{}]
	Views    *Views
	OIDC     bool
	Log      *slog.Logger
}

// NewSessionGuard builds the guard.
func NewSessionGuard(p GuardParams) *SessionGuard {
	signIn := pathSignedOut
	if p.OIDC {
		signIn = pathLogin
	}
	return &SessionGuard{resume: p.Sessions.ResumeSession, record: p.Record, views: p.Views, signIn: signIn, log: p.Log}
}

// Page runs h for a principal whose role includes need.
func (g *SessionGuard) Page(need operator.Role, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := g.principal(w, r)
		if !ok {
			return
		}
		if !p.Role.Includes(need) {
			g.forbidden(w, r, p, need)
			return
		}
		h(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// Action runs h for a principal whose role includes need; anyone else's
// form is answered 403, does nothing, and is recorded as action with the
// outcome forbidden (the form's org as the record's organization).
func (g *SessionGuard) Action(need operator.Role, action audit.Action, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := g.principal(w, r)
		if !ok {
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if !p.Role.Includes(need) {
			g.recordForbidden(r, p, action)
			g.forbidden(w, r, p, need)
			return
		}
		h(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// principal is the request's signed-in principal. Without a session — no
// cookie, or one whose session ended, expired or was revoked — it clears
// the cookie and answers 303 to sign in, and false.
func (g *SessionGuard) principal(w http.ResponseWriter, r *http.Request) (operator.Principal, bool) {
	id := sessionID(r)
	if id == "" {
		http.Redirect(w, r, g.signInFor(r), http.StatusSeeOther)
		return operator.Principal{}, false
	}
	p, err := g.resume.Handle(r.Context(), operatorapp.ResumeSession{ID: id})
	switch {
	case err == nil:
		return p, true
	case errors.Is(err, operator.ErrSignedOut):
		clearCookie(w, sessionCookie)
		http.Redirect(w, r, g.signInFor(r), http.StatusSeeOther)
	default:
		g.unavailable(w, r, err)
	}
	return operator.Principal{}, false
}

// signInFor is where a request without a session is sent: to sign in,
// and for a page (a GET) back to it afterwards.
func (g *SessionGuard) signInFor(r *http.Request) string {
	if r.Method != http.MethodGet || g.signIn != pathLogin {
		return g.signIn
	}
	return g.signIn + "?next=" + url.QueryEscape(r.URL.RequestURI())
}

// forbiddenView is what the forbidden page says: the role the page or
// action needs and the one the person has.
type forbiddenView struct {
	Need, Have operator.Role
}

func (g *SessionGuard) forbidden(w http.ResponseWriter, r *http.Request, p operator.Principal, need operator.Role) {
	g.views.Render(w, r.WithContext(WithPrincipal(r.Context(), p)), http.StatusForbidden, "signin_forbidden",
		forbiddenView{Need: need, Have: p.Role})
}

// recordForbidden writes the refusal's audit record: the action, the
// form's fields as its input (no form of the console holds a secret) and
// its org. A record that cannot be written is logged; the answer is 403
// either way.
func (g *SessionGuard) recordForbidden(r *http.Request, p operator.Principal, action audit.Action) {
	input := map[string]string{}
	if err := r.ParseForm(); err == nil {
		for k, v := range r.PostForm {
			if len(v) > 0 {
				input[k] = v[0]
			}
		}
	}
	org := input["org"]
	if !domain.ValidID(org) {
		org = ""
	}
	_, err := g.record.Handle(r.Context(), application.RecordOperatorAction{
		Operation: application.Operation{Actor: p.Actor(), Action: action, OrganizationID: org, Input: input},
		Outcome:   audit.Forbidden,
	})
	if err != nil {
		g.log.ErrorContext(r.Context(), "console: the record of a forbidden action", slog.String("action", string(action)),
			slog.String("error", err.Error()))
	}
}

// unavailable answers a request the database could not serve (503 for a
// timeout or an outage; 500 otherwise), without the error's text.
func (g *SessionGuard) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	if application.KindOf(err).Fault() && application.KindOf(err) != domain.KindInternal {
		status = http.StatusServiceUnavailable
	}
	if !errors.Is(err, context.Canceled) {
		g.log.ErrorContext(r.Context(), "console: resume a session", slog.String("error", err.Error()))
	}
	g.views.Render(w, r, status, "signin_unavailable", nil)
}
