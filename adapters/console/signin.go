package console

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/application"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/operator"
)

// The sign-in's paths.
const (
	// pathLogin starts the OpenID Connect sign-in (without a provider, it
	// sends to pathSignedOut).
	pathLogin = "/login"
	// PathCallback is where the provider sends the browser back: the
	// redirect URI to register with it is the console's origin and this.
	PathCallback = "/auth/callback"
	// pathSignedOut, without a link, tells how to sign in; with ?link=
	// TOKEN it uses a one-time sign-in link (SignInLinkPath).
	pathSignedOut = "/signin"
	pathLogout    = "/logout"
	// pathLoggedOut is where a logout ends.
	pathLoggedOut = "/signed-out"
)

// SignInLinkPath is the path and query of the sign-in link of token
// (`fulfillment console link` prints it after the console's origin).
func SignInLinkPath(token string) string { return pathSignedOut + "?link=" + token }

// SignIn is the console's sign-in and sign-out: a Routes group of its
// own, open to requests without a session (but /logout).
type SignIn struct {
	app   *operatorapp.UseCases
	oidc  *OIDC // nil: no provider
	views *Views
	log   *slog.Logger
}

// NewSignIn builds the routes; oidc nil means no provider (sign-in links
// only, sandbox).
func NewSignIn(app *operatorapp.UseCases, oidc *OIDC, views *Views, log *slog.Logger) *SignIn {
	return &SignIn{app: app, oidc: oidc, views: views, log: log}
}

// Register implements Routes.
func (s *SignIn) Register(r *mux.Router, g Guard) {
	r.HandleFunc(pathLogin, s.login).Methods(http.MethodGet)
	r.HandleFunc(PathCallback, s.callback).Methods(http.MethodGet)
	r.HandleFunc(pathSignedOut, s.signin).Methods(http.MethodGet)
	r.HandleFunc(pathLoggedOut, s.signedOut).Methods(http.MethodGet)
	// Every session has a role, so every signed-in person may sign out.
	r.Handle(pathLogout, g.Page(operator.Viewer, s.logout)).Methods(http.MethodPost)
}

// signInView tells the sign-in pages whether a provider signs people in.
type signInView struct {
	OIDC bool
}

// login sends the browser to the provider, the sign-in's state kept in
// the sign-in cookie; without a provider, to the page that asks for a
// sign-in link.
func (s *SignIn) login(w http.ResponseWriter, r *http.Request) {
	if s.oidc == nil {
		http.Redirect(w, r, pathSignedOut, http.StatusSeeOther)
		return
	}
	st, url, err := s.oidc.start(r.Context())
	if err != nil {
		s.log.ErrorContext(r.Context(), "console: start a sign-in", slog.String("error", err.Error()))
		s.views.Render(w, r, http.StatusServiceUnavailable, "signin_unavailable", nil)
		return
	}
	st.Next = localPath(r.URL.Query().Get("next"))
	setCookie(w, signInCookie, st.encode(), signInTTL)
	http.Redirect(w, r, url, http.StatusSeeOther)
}

// callback completes the provider's sign-in: a session for a principal
// with a known role (303 to /), a 403 page and no session for one without.
func (s *SignIn) callback(w http.ResponseWriter, r *http.Request) {
	if s.oidc == nil {
		http.NotFound(w, r)
		return
	}
	c, err := r.Cookie(signInCookie)
	clearCookie(w, signInCookie) // a sign-in's state serves once
	var st signInState
	ok := err == nil
	if ok {
		st, ok = decodeSignInState(c.Value)
	}
	q := r.URL.Query()
	if !ok || q.Get("error") != "" {
		if q.Get("error") != "" {
			s.log.InfoContext(r.Context(), "console: the provider refused a sign-in", slog.String("error", q.Get("error")))
		}
		s.views.Render(w, r, http.StatusBadRequest, "signin_failed", signInView{OIDC: true})
		return
	}
	p, err := s.oidc.finish(r.Context(), st, q.Get("state"), q.Get("code"))
	if err != nil {
		status := http.StatusBadRequest
		if !errors.Is(err, errSignIn) {
			status = http.StatusServiceUnavailable
		}
		s.log.WarnContext(r.Context(), "console: a sign-in failed", slog.String("error", err.Error()))
		s.views.Render(w, r, status, "signin_failed", signInView{OIDC: true})
		return
	}
	if p.Role == operator.NoRole {
		s.log.InfoContext(r.Context(), "console: signed in with no role of the console", slog.String("subject", p.Subject))
		s.views.Render(w, r, http.StatusForbidden, "signin_no_role", p)
		return
	}
	started, err := s.app.StartSession.Handle(r.Context(), operatorapp.StartSession{Principal: p})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	setSessionCookie(w, started.ID)
	next := localPath(st.Next)
	if next == "" {
		next = "/"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// localPath is p when it is a path of the console (it starts with one
// slash: never another site's address, "//host" or "/\host"), else "".
func localPath(p string) string {
	if len(p) > 2048 || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return ""
	}
	return p
}

// signin uses a one-time sign-in link (?link=TOKEN): a session and 303 to
// /; a link unknown, used or expired is refused with 403 and starts none.
// Without a link it tells how to sign in.
func (s *SignIn) signin(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("link")
	if token == "" {
		if s.oidc != nil {
			http.Redirect(w, r, pathLogin, http.StatusSeeOther)
			return
		}
		s.views.Render(w, r, http.StatusOK, "signin_required", signInView{})
		return
	}
	started, err := s.app.RedeemSignInLink.Handle(r.Context(), operatorapp.RedeemSignInLink{Token: token})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	setSessionCookie(w, started.ID)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// failed answers a sign-in the use cases refused (403) or could not
// complete (503, 500), without the error's text.
func (s *SignIn) failed(w http.ResponseWriter, r *http.Request, err error) {
	kind := application.KindOf(err)
	switch {
	case errors.Is(err, operator.ErrLinkRefused):
		s.views.Render(w, r, http.StatusForbidden, "signin_failed", signInView{OIDC: s.oidc != nil})
	case kind == domain.KindInvalid:
		s.views.Render(w, r, http.StatusForbidden, "signin_no_role", operator.Principal{})
	default:
		s.log.ErrorContext(r.Context(), "console: start a session", slog.String("error", err.Error()))
		status := http.StatusInternalServerError
		if kind.Fault() && kind != domain.KindInternal {
			status = http.StatusServiceUnavailable
		}
		s.views.Render(w, r, status, "signin_unavailable", nil)
	}
}

// logout ends the session, clears its cookie and says so.
func (s *SignIn) logout(w http.ResponseWriter, r *http.Request) {
	if _, err := s.app.EndSession.Handle(r.Context(), operatorapp.EndSession{ID: sessionID(r)}); err != nil {
		s.failed(w, r, err)
		return
	}
	clearCookie(w, sessionCookie)
	http.Redirect(w, r, pathLoggedOut, http.StatusSeeOther)
}

func (s *SignIn) signedOut(w http.ResponseWriter, r *http.Request) {
	s.views.Render(w, r, http.StatusOK, "signed_out", nil)
}
