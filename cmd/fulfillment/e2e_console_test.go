package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// consoleBrowser is an HTTP client with a cookie jar that follows no
// redirect: each test follows the ones it means to. The jar sends the
// console's Secure cookies to http://127.0.0.1, as browsers do.
func consoleBrowser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type consoleAnswer struct {
	status   int
	location string
	body     string
	url      *url.URL
}

func consoleDo(t *testing.T, c *http.Client, method, u string, form url.Values) consoleAnswer {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return consoleAnswer{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(b), url: req.URL}
}

func (a consoleAnswer) want(t *testing.T, status int, location string) {
	t.Helper()
	if a.status != status || a.location != location {
		t.Fatalf("%s: %d (Location %q), want %d (Location %q): %.300s", a.url, a.status, a.location, status, location, a.body)
	}
}

// startConsole runs serve with the console on a free address and waits
// for its /healthz; it returns the server and the console's origin.
func startConsole(t *testing.T, extra ...string) (*e2e.Server, string) {
	t.Helper()
	return startConsoleAt(t, e2e.FreeAddr(t), extra...)
}

// printLink runs `console link` and returns the URL it printed.
func printLink(t *testing.T, origin, subject, roles string) string {
	t.Helper()
	addr := strings.TrimPrefix(origin, "http://")
	out := strings.TrimSpace(e2e.MustCLI(t, e2e.BaseEnv(e2e.TestDSN, "CONSOLE_ADDR="+addr), "console", "link", "--subject", subject, "--roles", roles))
	if !strings.HasPrefix(out, origin+"/signin?link=") || strings.Contains(out, "\n") {
		t.Fatalf("console link printed %q, want one URL of %s", out, origin)
	}
	return out
}

// The sign-in link of §18: printed by `console link`, used once by a plain
// GET that signs in and redirects to /; `console sessions revoke` ends the
// session at its next request.
func TestConsoleSignInLink(t *testing.T) {
	_, origin := startConsole(t)
	link := printLink(t, origin, "e2e-ana", "viewer,billing")

	ana := consoleBrowser(t)
	consoleDo(t, ana, "GET", link, nil).want(t, http.StatusSeeOther, "/")
	// "/" is the pages' (not a redirect to sign in: the session is good).
	if a := consoleDo(t, ana, "GET", origin+"/", nil); a.status == http.StatusSeeOther {
		t.Fatalf("/ with the session: %d to %s", a.status, a.location)
	}
	if role := e2e.QueryValue[string](t, `SELECT role FROM console_sessions WHERE subject = 'e2e-ana'`); role != "billing" {
		t.Fatalf("the session's role: %q, want billing (the highest of the link's)", role)
	}

	// The link is dead once used: another browser is refused and gets no
	// session.
	other := consoleBrowser(t)
	if a := consoleDo(t, other, "GET", link, nil); a.status != http.StatusForbidden || !strings.Contains(a.body, "cannot be used") {
		t.Fatalf("a reused link: %d %.300s", a.status, a.body)
	}
	consoleDo(t, other, "POST", origin+"/logout", nil).want(t, http.StatusSeeOther, "/signin")

	// Revoked: the next request is sent to sign in.
	out := e2e.MustCLI(t, e2e.BaseEnv(e2e.TestDSN), "console", "sessions", "revoke", "--subject", "e2e-ana")
	if strings.TrimSpace(out) != "ended 1 session(s) of e2e-ana" {
		t.Fatalf("console sessions revoke printed %q", out)
	}
	consoleDo(t, ana, "POST", origin+"/logout", nil).want(t, http.StatusSeeOther, "/signin")

	// A new link, a new session; logout ends it.
	consoleDo(t, ana, "GET", printLink(t, origin, "e2e-ana", "viewer"), nil).want(t, http.StatusSeeOther, "/")
	consoleDo(t, ana, "POST", origin+"/logout", nil).want(t, http.StatusSeeOther, "/signed-out")
	if n := e2e.QueryValue[int](t, `SELECT count(*) FROM console_sessions WHERE subject = 'e2e-ana'`); n != 0 {
		t.Fatalf("%d sessions after logout", n)
	}
}

// What the console refuses: production without a provider (serve and
// console link, exit 1, one line), malformed flags (exit 2).
func TestConsoleRefusals(t *testing.T) {
	prod := e2e.BaseEnv(e2e.TestDSN, "ENVIRONMENT=production", "CONSOLE_ADDR="+e2e.FreeAddr(t))
	r := e2e.RunCLI(t, prod, "serve")
	if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "CONSOLE_OIDC_ISSUER") {
		t.Fatalf("serve in production without an issuer: exit %d, stderr %q", r.Code, r.Stderr)
	}
	r = e2e.RunCLI(t, prod, "console", "link", "--subject", "eve", "--roles", "admin")
	if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, "sandbox only") {
		t.Fatalf("console link in production: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	sandbox := e2e.BaseEnv(e2e.TestDSN, "CONSOLE_ADDR="+e2e.FreeAddr(t))
	for _, args := range [][]string{
		{"console"},
		{"console", "link"},
		{"console", "link", "--subject", "eve"},
		{"console", "link", "--subject", "eve", "--roles", "root"},
		{"console", "link", "--subject", "eve", "--roles", "viewer", "--ttl", "48h"},
		{"console", "link", "--subject", "eve", "--roles", "viewer", "--ttl", "soon"},
		{"console", "link", "--subject", "eve", "--roles", "viewer", "extra"},
		{"console", "sessions", "revoke"},
		{"console", "sessions", "end", "--subject", "eve"},
	} {
		if r := e2e.RunCLI(t, sandbox, args...); r.Code != 2 || r.Stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, want 2", args, r.Code, r.Stdout)
		}
	}
	if n := e2e.QueryValue[int](t, `SELECT count(*) FROM console_signin_links WHERE subject = 'eve'`); n != 0 {
		t.Fatalf("%d links made by refused commands", n)
	}
}

// The OpenID Connect sign-in through the real provider of the IdP tests
// (npm's oidc-provider), with an HTTP client filling its login form: the
// code flow with PKCE, state and nonce, and a session with the account's
// role; an account with no role of the console gets a 403 page and no
// session.
func TestConsoleOIDCSignIn(t *testing.T) {
	dir := tool(t, "oidc-provider")
	idpAddr := e2e.FreeAddr(t)
	consoleAddr := e2e.FreeAddr(t)
	issuer := "http://" + idpAddr
	origin := "http://" + consoleAddr
	startConsoleProvider(t, dir, idpAddr, origin)
	_, _ = startConsoleAt(t, consoleAddr, "CONSOLE_OIDC_ISSUER="+issuer, "CONSOLE_OIDC_CLIENT_ID=console",
		"CONSOLE_OIDC_CLIENT_SECRET=console-secret-0123456789")

	// Without a session a page is sent to /login, which starts the sign-in.
	bill := consoleBrowser(t)
	consoleDo(t, bill, "POST", origin+"/logout", nil).want(t, http.StatusSeeOther, "/login")
	a := oidcSignIn(t, bill, origin, "bill")
	a.want(t, http.StatusSeeOther, "/")
	role := e2e.QueryValue[string](t, `SELECT role FROM console_sessions WHERE subject = 'bill'`)
	email := e2e.QueryValue[string](t, `SELECT email FROM console_sessions WHERE subject = 'bill'`)
	if role != "billing" || email != "bill@example.com" {
		t.Fatalf("bill's session: role %q, e-mail %q; want billing, bill@example.com", role, email)
	}
	consoleDo(t, bill, "POST", origin+"/logout", nil).want(t, http.StatusSeeOther, "/signed-out")

	// An account without a role of the console.
	nobody := consoleBrowser(t)
	// A page asked for without a session is where the sign-in comes back to.
	page := "/audit?actor=otto&action=orders.replay"
	a = oidcSignInFrom(t, consoleBrowser(t), origin+page, origin, "otto")
	a.want(t, http.StatusSeeOther, page)

	a = oidcSignIn(t, nobody, origin, "nobody")
	if a.status != http.StatusForbidden || !strings.Contains(a.body, "No access") {
		t.Fatalf("an account without a role: %d %.300s", a.status, a.body)
	}
	if n := e2e.QueryValue[int](t, `SELECT count(*) FROM console_sessions WHERE subject = 'nobody'`); n != 0 {
		t.Fatalf("%d sessions of an account without a role", n)
	}

	// A callback that is not the answer to this browser's sign-in: refused.
	stray := consoleBrowser(t)
	if a := consoleDo(t, stray, "GET", origin+"/auth/callback?code=x&state=y", nil); a.status != http.StatusBadRequest {
		t.Fatalf("a stray callback: %d %.300s", a.status, a.body)
	}
}

// startConsoleAt is startConsole on a given address (the provider's
// redirect URI names it first).
func startConsoleAt(t *testing.T, addr string, extra ...string) (*e2e.Server, string) {
	t.Helper()
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, append([]string{"CONSOLE_ADDR=" + addr}, extra...)...))
	origin := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for !answers200(origin + "/healthz") {
		if time.Now().After(deadline) {
			t.Fatalf("the console's /healthz did not answer 200\n%s", srv.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return srv, origin
}

// The provider's people for the console, one per role, and an account
// with no role of the console (a role of another system only). Any other
// login signs in with no roles at all.
var consoleAccounts = map[string]any{
	"vera":   map[string]any{"email": "vera@example.com", "roles": []string{"viewer"}},
	"otto":   map[string]any{"email": "otto@example.com", "roles": []string{"ops"}},
	"bill":   map[string]any{"email": "bill@example.com", "roles": []string{"billing", "other-system-role"}},
	"ada":    map[string]any{"email": "ada@example.com", "roles": []string{"admin"}},
	"nobody": map[string]any{"email": "nobody@example.com", "roles": []string{"other-system-role"}},
}

// startConsoleProvider runs testdata/oidc-provider.mjs with the console's
// web client (redirect URI origin + /auth/callback) and consoleAccounts.
func startConsoleProvider(t *testing.T, dir, addr, origin string) {
	t.Helper()
	_, port, _ := strings.Cut(addr, ":")
	web, _ := json.Marshal(map[string]any{"client_id": "console", "client_secret": "console-secret-0123456789",
		"redirect_uris": []string{origin + "/auth/callback"}})
	accounts, _ := json.Marshal(consoleAccounts)
	keys, _ := json.Marshal([]any{rsaJWK(t, "console-key")})
	cmd := exec.Command("node", "testdata/oidc-provider.mjs")
	cmd.Env = append(e2e.BaseEnv(e2e.TestDSN), "OIDC_PROVIDER_DIR="+dir, "PORT="+port, "KEYS="+string(keys),
		"WEB_CLIENT="+string(web), "ACCOUNTS="+string(accounts), "NODE_NO_WARNINGS=1")
	p := &identityProvider{cmd: cmd, done: make(chan struct{}), logs: &e2e.SyncBuffer{}}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the identity provider: %v", err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		<-p.done
	})
	tp := &toolProcess{name: "oidc-provider", logs: p.logs, exited: p.done}
	tp.poll(t, "its discovery document", func() bool {
		return answers200("http://" + addr + "/.well-known/openid-configuration")
	})
}

var formAction = regexp.MustCompile(`<form[^>]*action="([^"]+)"`)

// oidcSignIn starts the sign-in at the console's /login and follows it as
// a browser would: to the provider, through its login form (login, any
// password) and its consent form if it shows one, and back to the
// console's callback, whose answer it returns.
func oidcSignIn(t *testing.T, c *http.Client, origin, login string) consoleAnswer {
	t.Helper()
	return oidcSignInFrom(t, c, origin+"/login", origin, login)
}

// oidcSignInFrom is oidcSignIn started at start: /login, or a page asked
// for without a session.
func oidcSignInFrom(t *testing.T, c *http.Client, start, origin, login string) consoleAnswer {
	t.Helper()
	a := consoleDo(t, c, "GET", start, nil)
	for range 20 {
		if strings.HasPrefix(a.url.String(), origin+"/auth/callback") {
			return a
		}
		switch {
		case a.status == http.StatusSeeOther || a.status == http.StatusFound:
			next, err := a.url.Parse(a.location)
			if err != nil {
				t.Fatal(err)
			}
			a = consoleDo(t, c, "GET", next.String(), nil)
		case a.status == http.StatusOK && formAction.MatchString(a.body):
			action, err := a.url.Parse(formAction.FindStringSubmatch(a.body)[1])
			if err != nil {
				t.Fatal(err)
			}
			form := url.Values{"prompt": {"consent"}}
			if strings.Contains(a.body, `value="login"`) {
				form = url.Values{"prompt": {"login"}, "login": {login}, "password": {"any"}}
			}
			a = consoleDo(t, c, "POST", action.String(), form)
		default:
			t.Fatalf("the sign-in stopped at %s: %d %.500s", a.url, a.status, a.body)
		}
	}
	t.Fatalf("the sign-in did not come back to the console")
	return a
}
