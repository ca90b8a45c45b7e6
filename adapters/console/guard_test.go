package console_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/acme3pl/fulfillment/adapters/console"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	pgoperator "github.com/acme3pl/fulfillment/adapters/postgres/operator"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/adapters/system"
	"github.com/acme3pl/fulfillment/application"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/operator"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// clock is the time the console's use cases see; the test moves it.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

// probe is a group of test routes behind the guard: a viewer's page, an
// admin's page and an ops action that counts its runs.
type probe struct{ actions atomic.Int32 }

func (p *probe) Register(r *mux.Router, g console.Guard) {
	page := func(w http.ResponseWriter, r *http.Request) {
		who, _ := console.PrincipalFrom(r.Context())
		_, _ = io.WriteString(w, "page for "+who.Subject+" as "+who.Role.String())
	}
	r.Handle("/", g.Page(operator.Viewer, page)).Methods(http.MethodGet)
	r.Handle("/admin-only", g.Page(operator.Admin, page)).Methods(http.MethodGet)
	r.Handle("/ops-action", g.Action(operator.Ops, audit.OrdersReplay, func(w http.ResponseWriter, _ *http.Request) {
		p.actions.Add(1)
		_, _ = io.WriteString(w, "replayed")
	})).Methods(http.MethodPost)
}

// consoleFixture is a console on a database of its own, with the real use
// cases, the real guard and sign-in, and the probe routes.
type consoleFixture struct {
	db    *bun.DB
	clock *clock
	app   *operatorapp.UseCases
	probe *probe
	srv   *httptest.Server
}

func newConsole(t *testing.T) *consoleFixture {
	t.Helper()
	db := pgtest.Open(t, pgtest.Database(t, true))
	c := &clock{at: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	log := slog.New(slog.DiscardHandler)
	d := application.Deps[operatorports.Repositories]{
		UnitOfWork: postgres.NewUnitOfWork(db, pgoperator.Repositories), Repos: postgres.NewRepositories(db, pgoperator.Repositories),
		Clock: c, IDs: system.IDs{}, Tracer: noop.NewTracerProvider().Tracer("test"), Log: log, Environment: domain.Sandbox,
	}
	access := application.Deps[accessports.Repositories]{
		UnitOfWork: postgres.NewUnitOfWork(db, pgaccess.Repositories), Repos: postgres.NewRepositories(db, pgaccess.Repositories),
		Clock: c, IDs: system.IDs{}, Tracer: d.Tracer, Log: log, Environment: domain.Sandbox,
	}
	f := &consoleFixture{db: db, clock: c, app: operatorapp.New(d), probe: &probe{}}
	views, err := console.NewViews()
	if err != nil {
		t.Fatal(err)
	}
	kernel := application.New(access, postgres.NewUnitOfWork(db, pgfixture.Repositories), postgres.Overview(postgres.OnPool(db)), nil)
	guard := console.NewSessionGuard(console.GuardParams{Sessions: f.app, Record: kernel.RecordOperatorAction, Views: views, Log: log})
	h := console.NewHandler(console.HandlerParams{
		Routes: []console.Routes{console.NewSignIn(f.app, nil, views, log), f.probe}, Guard: guard, Log: log,
	})
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// browser is a client with a cookie jar that does not follow redirects.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type answer struct {
	status   int
	location string
	body     string
	cookies  []*http.Cookie
}

func (f *consoleFixture) do(t *testing.T, c *http.Client, method, path string, form url.Values, headers ...string) answer {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(b), cookies: resp.Cookies()}
}

func (a answer) want(t *testing.T, status int, location string) {
	t.Helper()
	if a.status != status || a.location != location {
		t.Fatalf("answer %d (Location %q), want %d (Location %q): %s", a.status, a.location, status, location, a.body)
	}
}

// signIn issues a link for subject with roles and uses it in a new
// browser; it checks the cookie it is given.
func (f *consoleFixture) signIn(t *testing.T, subject string, roles ...string) *http.Client {
	t.Helper()
	token, err := f.app.IssueSignInLink.Handle(context.Background(), operatorapp.IssueSignInLink{Subject: subject, Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	c := browser(t)
	a := f.do(t, c, http.MethodGet, console.SignInLinkPath(token), nil)
	a.want(t, http.StatusSeeOther, "/")
	if len(a.cookies) != 1 {
		t.Fatalf("cookies %v, want the session's", a.cookies)
	}
	k := a.cookies[0]
	if k.Name != "__Host-console_session" || !k.Secure || !k.HttpOnly || k.SameSite != http.SameSiteLaxMode || k.Path != "/" ||
		k.Domain != "" || !operator.WellFormedSecret(k.Value) {
		t.Fatalf("session cookie %+v", k)
	}
	return c
}

func (f *consoleFixture) sessions(t *testing.T, subject string) int {
	t.Helper()
	var n int
	if err := f.db.NewRaw(`SELECT count(*) FROM console_sessions WHERE subject = ?`, subject).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (f *consoleFixture) audit(t *testing.T, actor string) []audit.Record {
	t.Helper()
	var out []audit.Record
	err := postgres.NewAuditLog(f.db).List(context.Background(), auditports.Query{Actor: actor}, func(r audit.Record) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantCleared checks that a answers with the session cookie cleared.
func wantCleared(t *testing.T, a answer) {
	t.Helper()
	for _, k := range a.cookies {
		if k.Name == "__Host-console_session" && k.MaxAge < 0 {
			return
		}
	}
	t.Fatalf("cookies %v: the session's is not cleared", a.cookies)
}

func TestGuard(t *testing.T) {
	f := newConsole(t)

	t.Run("no session: 303 to sign in", func(t *testing.T) {
		f.do(t, browser(t), http.MethodGet, "/", nil).want(t, http.StatusSeeOther, "/signin")
		f.do(t, browser(t), http.MethodPost, "/ops-action", url.Values{"org": {"org_1"}}).want(t, http.StatusSeeOther, "/signin")
		f.do(t, browser(t), http.MethodPost, "/logout", nil).want(t, http.StatusSeeOther, "/signin")
		if n := f.probe.actions.Load(); n != 0 {
			t.Fatalf("the action ran %d times without a session", n)
		}
		a := f.do(t, browser(t), http.MethodGet, "/signin", nil)
		if a.status != http.StatusOK || !strings.Contains(a.body, "fulfillment console link") {
			t.Fatalf("the sign-in page: %d %s", a.status, a.body)
		}
		// A cookie of no session is cleared.
		c := browser(t)
		u, _ := url.Parse(f.srv.URL)
		c.Jar.SetCookies(u, []*http.Cookie{{Name: "__Host-console_session", Value: strings.Repeat("A", 43), Path: "/"}})
		a = f.do(t, c, http.MethodGet, "/", nil)
		a.want(t, http.StatusSeeOther, "/signin")
		wantCleared(t, a)
	})

	t.Run("a link signs in once", func(t *testing.T) {
		token, err := f.app.IssueSignInLink.Handle(context.Background(), operatorapp.IssueSignInLink{Subject: "once", Roles: []string{"viewer"}})
		if err != nil {
			t.Fatal(err)
		}
		c := browser(t)
		f.do(t, c, http.MethodGet, console.SignInLinkPath(token), nil).want(t, http.StatusSeeOther, "/")
		if a := f.do(t, c, http.MethodGet, "/", nil); a.status != 200 || a.body != "page for once as viewer" {
			t.Fatalf("the page after sign-in: %d %s", a.status, a.body)
		}
		again := f.do(t, browser(t), http.MethodGet, console.SignInLinkPath(token), nil)
		if again.status != http.StatusForbidden || len(again.cookies) != 0 || !strings.Contains(again.body, "cannot be used") {
			t.Fatalf("a reused link: %d %v %s", again.status, again.cookies, again.body)
		}
		if n := f.sessions(t, "once"); n != 1 {
			t.Fatalf("%d sessions, want 1", n)
		}
		if a := f.do(t, browser(t), http.MethodGet, console.SignInLinkPath("nonsense"), nil); a.status != http.StatusForbidden {
			t.Fatalf("a malformed link: %d", a.status)
		}
	})

	t.Run("a viewer's action: 403, nothing done, recorded as forbidden", func(t *testing.T) {
		c := f.signIn(t, "vera", "viewer")
		a := f.do(t, c, http.MethodPost, "/ops-action", url.Values{"org": {"org_vera"}, "orderId": {"ord-1"}})
		if a.status != http.StatusForbidden || !strings.Contains(a.body, "needs the <strong>ops</strong> role") {
			t.Fatalf("a viewer's action: %d %s", a.status, a.body)
		}
		if n := f.probe.actions.Load(); n != 0 {
			t.Fatalf("the action ran %d times for a viewer", n)
		}
		recs := f.audit(t, "vera")
		if len(recs) != 1 || recs[0].Outcome != audit.Forbidden || recs[0].Action != audit.OrdersReplay ||
			recs[0].OrganizationID != "org_vera" || !strings.Contains(string(recs[0].Input), `"ord-1"`) {
			t.Fatalf("audit records %+v, want one forbidden orders.replay of org_vera", recs)
		}
		if a := f.do(t, c, http.MethodGet, "/admin-only", nil); a.status != http.StatusForbidden || !strings.Contains(a.body, "admin") {
			t.Fatalf("a viewer on an admin's page: %d %s", a.status, a.body)
		}
	})

	t.Run("a cross-origin form: 403, nothing done", func(t *testing.T) {
		c := f.signIn(t, "otto", "ops")
		form := url.Values{"org": {"org_otto"}}
		f.do(t, c, http.MethodPost, "/ops-action", form, "Sec-Fetch-Site", "cross-site").want(t, http.StatusForbidden, "")
		f.do(t, c, http.MethodPost, "/ops-action", form, "Sec-Fetch-Site", "same-site").want(t, http.StatusForbidden, "")
		u, _ := url.Parse(f.srv.URL)
		other := "http://" + u.Hostname() + ":1" // another port: another origin
		f.do(t, c, http.MethodPost, "/ops-action", form, "Origin", other).want(t, http.StatusForbidden, "")
		if n := f.probe.actions.Load(); n != 0 {
			t.Fatalf("the action ran %d times from another origin", n)
		}
		if recs := f.audit(t, "otto"); len(recs) != 0 {
			t.Fatalf("audit records of refused cross-origin forms: %+v", recs)
		}
		// The same form from the console itself runs.
		f.do(t, c, http.MethodPost, "/ops-action", form, "Sec-Fetch-Site", "same-origin", "Origin", f.srv.URL).want(t, http.StatusOK, "")
		if n := f.probe.actions.Load(); n != 1 {
			t.Fatalf("the action ran %d times, want once", n)
		}
	})

	t.Run("a revoked session: redirected at the next request", func(t *testing.T) {
		c := f.signIn(t, "rita", "admin")
		f.do(t, c, http.MethodGet, "/admin-only", nil).want(t, http.StatusOK, "")
		if n, err := f.app.RevokeSessions.Handle(context.Background(), operatorapp.RevokeSessions{Subject: "rita"}); err != nil || n != 1 {
			t.Fatalf("revoke: %d %v", n, err)
		}
		a := f.do(t, c, http.MethodGet, "/admin-only", nil)
		a.want(t, http.StatusSeeOther, "/signin")
		wantCleared(t, a)
		before := f.probe.actions.Load()
		f.do(t, c, http.MethodPost, "/ops-action", url.Values{}).want(t, http.StatusSeeOther, "/signin")
		if f.probe.actions.Load() != before {
			t.Fatal("the action ran for a revoked session")
		}
	})

	t.Run("an expired session: redirected", func(t *testing.T) {
		c := f.signIn(t, "edda", "ops")
		f.clock.add(29 * time.Minute)
		f.do(t, c, http.MethodGet, "/", nil).want(t, http.StatusOK, "")
		f.clock.add(operator.IdleTimeout)
		a := f.do(t, c, http.MethodGet, "/", nil)
		a.want(t, http.StatusSeeOther, "/signin")
		wantCleared(t, a)
		if n := f.sessions(t, "edda"); n != 0 {
			t.Fatalf("%d expired sessions kept", n)
		}
	})

	t.Run("logout ends the session", func(t *testing.T) {
		c := f.signIn(t, "lou", "billing")
		a := f.do(t, c, http.MethodPost, "/logout", nil)
		a.want(t, http.StatusSeeOther, "/signed-out")
		wantCleared(t, a)
		if n := f.sessions(t, "lou"); n != 0 {
			t.Fatalf("%d sessions after logout", n)
		}
		if a := f.do(t, c, http.MethodGet, "/signed-out", nil); a.status != 200 || !strings.Contains(a.body, "Signed out") {
			t.Fatalf("the signed-out page: %d %s", a.status, a.body)
		}
	})

	t.Run("without a provider /login asks for a link", func(t *testing.T) {
		f.do(t, browser(t), http.MethodGet, "/login", nil).want(t, http.StatusSeeOther, "/signin")
	})
}

// A database that cannot be reached is a 503 page, not a sign-out.
func TestGuardUnavailable(t *testing.T) {
	f := newConsole(t)
	c := f.signIn(t, "una", "viewer")
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	a := f.do(t, c, http.MethodGet, "/", nil)
	if a.status < 500 || !strings.Contains(a.body, "unavailable") || strings.Contains(a.body, "sql") {
		t.Fatalf("a session with the database gone: %d %s", a.status, a.body)
	}
	for _, k := range a.cookies {
		if k.Name == "__Host-console_session" {
			t.Fatalf("the cookie was touched: %+v", k)
		}
	}
}

// Every sign-in page renders, inside the layout.
func TestSignInPages(t *testing.T) {
	views, err := console.NewViews()
	if err != nil {
		t.Fatal(err)
	}
	type forbidden struct{ Need, Have operator.Role }
	for page, data := range map[string]any{
		"signin_required":    struct{ OIDC bool }{},
		"signin_failed":      struct{ OIDC bool }{true},
		"signin_no_role":     operator.Principal{Subject: "nobody"},
		"signin_forbidden":   forbidden{Need: operator.Admin, Have: operator.Viewer},
		"signin_unavailable": nil,
		"signed_out":         nil,
	} {
		w := httptest.NewRecorder()
		views.Render(w, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK, page, data)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "<h1>") || !strings.Contains(w.Body.String(), "</html>") {
			t.Errorf("page %s: %d %s", page, w.Code, w.Body)
		}
	}
	w := httptest.NewRecorder()
	views.Render(w, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK, "signin_failed", struct{ OIDC bool }{false})
	if !strings.Contains(w.Body.String(), "fulfillment console link") {
		t.Errorf("the refused link's page: %s", w.Body)
	}
}
