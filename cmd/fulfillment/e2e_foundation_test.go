package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/identity"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// foundationFixture: organizations and warehouses of the foundation tests.
func foundationFixture() map[string]any {
	return map[string]any{
		"organizations": []any{
			e2e.FixtureOrg("org_e2e_fd_a", "A"),
			e2e.FixtureOrg("org_e2e_fd_b", "B"),
		},
		"warehouses": []any{
			e2e.FixtureWarehouse("wh_e2e_fd_3", "Gamma", true, "org_e2e_fd_a"),
			e2e.FixtureWarehouse("wh_e2e_fd_1", "Alpha", true, "org_e2e_fd_a", "org_e2e_fd_b"),
			e2e.FixtureWarehouse("wh_e2e_fd_2", "Beta", false, "org_e2e_fd_a"),
			e2e.FixtureWarehouse("wh_e2e_fd_4", "Delta", true, "org_e2e_fd_b"),
		},
	}
}

var seedFoundation = e2e.SeedFixtureOnce("foundation", foundationFixture)

func TestCLIUsageAndErrors(t *testing.T) {
	env := e2e.BaseEnv(e2e.TestDSN)
	tests := []struct {
		name     string
		env      []string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", env, nil, 2, "no command given"},
		{"unknown command", env, []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown migrate subcommand", env, []string{"migrate", "sideways"}, 2, "unknown subcommand"},
		{"seed without file", env, []string{"seed"}, 2, "seed needs --file"},
		{"unknown flag", env, []string{"token", "mint", "--org", "o", "--bogus"}, 2, "flag provided but not defined"},
		{"token of an organization and a warehouse", env, []string{"token", "mint", "--org", "o", "--warehouse", "w"}, 2, "exactly one of --org ID and --warehouse ID"},
		{"token of nobody", env, []string{"token", "mint", "--scopes", "warehouse"}, 2, "exactly one of --org ID and --warehouse ID"},
		{"bad environment", e2e.BaseEnv(e2e.TestDSN, "ENVIRONMENT=staging"), []string{"migrate", "status"}, 1, "ENVIRONMENT"},
		{"bad log level", e2e.BaseEnv(e2e.TestDSN, "LOG_LEVEL=loud"), []string{"serve"}, 1, "LOG_LEVEL"},
		{"short signing key", e2e.BaseEnv(e2e.TestDSN, "AUTH_SIGNING_KEY=short"), []string{"serve"}, 1, "AUTH_SIGNING_KEY"},
		{"serve without auth", e2e.BaseEnv(e2e.TestDSN, "AUTH_SIGNING_KEY="), []string{"serve"}, 1, "AUTH_SIGNING_KEY or AUTH_JWKS_URL"},
		{"bad database url", e2e.BaseEnv("mysql://x"), []string{"migrate", "status"}, 1, "DATABASE_URL"},
		{"missing fixture file", env, []string{"seed", "--file", "/nonexistent.json"}, 1, "no such file"},
		{"revoke unknown key", env, []string{"apikey", "revoke", "key_missing"}, 1, "not found"},
		{"unknown scope", env, []string{"apikey", "create", "--org", "org_e2e_fd_a", "--scopes", "shipments,admin"}, 2, `"admin" is not a scope`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e2e.RunCLI(t, tt.env, tt.args...)
			if r.Code != tt.wantCode || !strings.Contains(r.Stderr, tt.wantErr) {
				t.Fatalf("exit %d stderr %q, want %d and %q", r.Code, r.Stderr, tt.wantCode, tt.wantErr)
			}
			if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic") {
				t.Fatalf("stderr has a panic trace: %s", r.Stderr)
			}
			if tt.wantCode == 1 && strings.Count(strings.TrimRight(r.Stderr, "\n"), "\n") != 0 {
				t.Fatalf("a failure must be one line on stderr, got %q", r.Stderr)
			}
			if r.Stdout != "" {
				t.Fatalf("stdout %q, want nothing", r.Stdout)
			}
		})
	}
}

func TestCLIMigrateSeedTokenAPIKey(t *testing.T) {
	env := e2e.BaseEnv(e2e.TestDSN)
	if out := e2e.MustCLI(t, env, "migrate", "status"); !regexp.MustCompile(`(?m)^applied\s+0001_init$`).MatchString(out) {
		t.Fatalf("migrate status: %q", out)
	}
	if out := e2e.MustCLI(t, env, "migrate", "up"); out != "schema is up to date\n" {
		t.Fatalf("migrate up on a migrated database: %q", out)
	}

	seedFoundation(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	b, _ := json.Marshal(foundationFixture())
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := e2e.MustCLI(t, env, "seed", "--file", path); !strings.Contains(out, "organizations=0 warehouses=0") {
		t.Fatalf("second seed changed something: %q", out)
	}

	tok := e2e.MustCLI(t, env, "token", "mint", "--org", "org_e2e_fd_a", "--scopes", "locations,invoices", "--ttl", "5m")
	if !regexp.MustCompile(`^[\w-]+\.[\w-]+\.[\w-]+\n$`).MatchString(tok) {
		t.Fatalf("token mint printed %q, want one JWT line", tok)
	}

	key := e2e.MustCLI(t, env, "apikey", "create", "--org", "org_e2e_fd_a", "--scopes", "shipments,inventory", "--name", "shop")
	if !regexp.MustCompile(`^fk_test_[A-Za-z0-9]{32,}\n$`).MatchString(key) {
		t.Fatalf("apikey create printed %q", key)
	}
	list := e2e.MustCLI(t, env, "apikey", "list", "--org", "org_e2e_fd_a")
	if strings.Contains(list, strings.TrimSpace(key)) || !strings.Contains(list, "shop") {
		t.Fatalf("apikey list shows the secret or misses the key:\n%s", list)
	}
	keyID := regexp.MustCompile(`key_[0-9a-f]{32}`).FindString(list)
	if keyID == "" {
		t.Fatalf("no key ID in:\n%s", list)
	}
	if out := e2e.MustCLI(t, env, "apikey", "revoke", keyID); !strings.Contains(out, keyID) {
		t.Fatalf("revoke: %q", out)
	}
	if list := e2e.MustCLI(t, env, "apikey", "list", "--org", "org_e2e_fd_a"); strings.Contains(list, "\t-\n") || !regexp.MustCompile(`\d{4}-\d\d-\d\dT`).MatchString(list) {
		t.Fatalf("revoked key not shown as revoked:\n%s", list)
	}
	if r := e2e.RunCLI(t, env, "apikey", "create", "--org", "org_missing", "--scopes", "shipments"); r.Code != 1 {
		t.Fatalf("apikey create for an unknown organization: exit %d", r.Code)
	}
}

// TestSeedRefusesInconsistentTotals: the whole document is refused, the
// invoice is named, and nothing is written.
func TestSeedRefusesInconsistentTotals(t *testing.T) {
	doc := map[string]any{
		"organizations": []any{e2e.FixtureOrg("org_e2e_fd_bad", "Bad")},
		"invoices": []any{map[string]any{
			"id": "inv_e2e_bad", "organizationId": "org_e2e_fd_bad", "key": "INV-BAD", "status": "unpaid",
			"name": "x", "notes": "", "dueDate": "2026-12-01T00:00:00.000Z", "currency": "USD",
			"createdAt": "2026-11-01T00:00:00.000Z", "updatedAt": "2026-11-01T00:00:00.000Z", "deletedAt": nil,
			"totalAmount": 999,
			"items":       []any{map[string]any{"id": "li_e2e_bad", "title": "t", "description": "d", "quantity": 2, "unitCost": 25, "totalCost": 50}},
		}},
	}
	b, _ := json.Marshal(doc)
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "seed", "--file", path)
	if r.Code != 1 || !strings.Contains(r.Stderr, "inv_e2e_bad") || !strings.Contains(r.Stderr, "totalAmount") {
		t.Fatalf("exit %d stderr %q, want 1 naming inv_e2e_bad", r.Code, r.Stderr)
	}
	// nothing written: the organization of the document does not exist
	if r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "apikey", "create", "--org", "org_e2e_fd_bad", "--scopes", "shipments"); r.Code != 1 {
		t.Fatalf("the organization of a refused seed was written")
	}
}

func TestWarehousesAPI(t *testing.T) {
	seedFoundation(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	tokA := e2e.MintToken(t, "org_e2e_fd_a", "locations")
	auth := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

	r := e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, auth(tokA)...)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %s: %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var ws []map[string]any
	r.JSON(t, &ws)
	var ids []string
	for _, w := range ws {
		ids = append(ids, w["id"].(string))
		for _, f := range []string{"id", "name", "description", "address", "contact", "tags"} {
			if _, ok := w[f]; !ok {
				t.Errorf("warehouse %v lacks %s", w["id"], f)
			}
		}
	}
	if strings.Join(ids, ",") != "wh_e2e_fd_1,wh_e2e_fd_3" {
		t.Fatalf("warehouses %v, want the active ones of org A by name", ids)
	}
	if ws[0]["description"] != nil {
		t.Fatalf("description %v, want null", ws[0]["description"])
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(r.Header.Get("X-Trace-Id")) {
		t.Fatalf("X-Trace-Id %q", r.Header.Get("X-Trace-Id"))
	}

	// A warehouse's token is not an organization's, whatever its scopes; a
	// token of an inactive or unknown warehouse is not trusted at all.
	// (`token mint` refuses to make these: they are signed here directly.)
	whToken := func(wh string, scopes ...string) string {
		tok, err := identity.MintToken(identity.TokenConfig{SigningKey: []byte(e2e.TestSigningKey)},
			identity.MintParams{Warehouse: wh, Scopes: scopes, TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, auth(whToken("wh_e2e_fd_1", "warehouse", "locations"))...)
	e2e.WantProblem(t, r, 403, "insufficient_scope")
	for _, wh := range []string{"wh_e2e_fd_2", "wh_nowhere"} {
		r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, auth(whToken(wh, "locations"))...)
		e2e.WantProblem(t, r, 401, "invalid_token")
	}

	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses?take=1", nil, auth(tokA)...)
	if link := r.Header.Get("Link"); link != `</v0/warehouses?skip=1&take=1>; rel="next"` {
		t.Fatalf("Link %q", link)
	}
	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses?take=1&skip=1", nil, auth(tokA)...)
	if r.Header.Get("Link") != "" {
		t.Fatalf("Link on the last page: %q", r.Header.Get("Link"))
	}

	for _, q := range []string{"take=11", "take=0", "skip=-1", "take=abc", "skip=1.5"} {
		p := e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/warehouses?"+q, nil, auth(tokA)...), 400, "invalid_parameter")
		if want := strings.Split(q, "=")[0]; p.Parameter != want {
			t.Errorf("%s: parameter %q, want %q", q, p.Parameter, want)
		}
	}

	// authentication comes before validation
	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses?take=abc", nil)
	e2e.WantProblem(t, r, 401, "invalid_token")
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="fulfillment", error="invalid_token"` {
		t.Fatalf("WWW-Authenticate %q", got)
	}
	expired, _ := identity.MintToken(identity.TokenConfig{SigningKey: []byte(e2e.TestSigningKey)},
		identity.MintParams{Organization: "org_e2e_fd_a", Scopes: []string{"locations"}, TTL: time.Minute, Now: time.Now().Add(-time.Hour)})
	otherKey, _ := identity.MintToken(identity.TokenConfig{SigningKey: []byte("another-signing-key-0123456789abcdef")},
		identity.MintParams{Organization: "org_e2e_fd_a", Scopes: []string{"locations"}, TTL: time.Minute})
	for name, tok := range map[string]string{
		"expired": expired, "foreign key": otherKey, "garbage": "not-a-jwt",
		"alg none": "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJvcmdfaWQiOiJvcmdfZTJlX2ZkX2EiLCJzY29wZSI6ImxvY2F0aW9ucyIsImV4cCI6NDEwMjQ0NDgwMH0.",
	} {
		e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, auth(tok)...), 401, "invalid_token")
		_ = name
	}

	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, auth(e2e.MintToken(t, "org_e2e_fd_a", "invoices"))...)
	e2e.WantProblem(t, r, 403, "insufficient_scope")
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="fulfillment", error="insufficient_scope", scope="locations"` {
		t.Fatalf("WWW-Authenticate %q", got)
	}

	// another organization sees its own warehouses only
	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, auth(e2e.MintToken(t, "org_e2e_fd_b", "locations"))...)
	ws = nil
	r.JSON(t, &ws)
	if len(ws) != 2 || ws[0]["id"] != "wh_e2e_fd_1" || ws[1]["id"] != "wh_e2e_fd_4" {
		t.Fatalf("org B warehouses %v", ws)
	}

	e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/v0/nowhere", nil), 404, "not_found")
	r = e2e.Do(t, "DELETE", srv.URL+"/v0/warehouses", nil, auth(tokA)...)
	e2e.WantProblem(t, r, 405, "method_not_allowed")
	if r.Header.Get("Allow") != "GET" {
		t.Fatalf("Allow %q", r.Header.Get("Allow"))
	}

	// an incoming traceparent continues the caller's trace
	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, append(auth(tokA),
		"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")...)
	if r.Header.Get("X-Trace-Id") != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("X-Trace-Id %q does not continue the caller's trace", r.Header.Get("X-Trace-Id"))
	}
	// The access log line is written once the answer is out: wait for it a little.
	for deadline := time.Now().Add(2 * time.Second); !strings.Contains(srv.Logs(), `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`); {
		if time.Now().After(deadline) {
			t.Fatalf("log lines do not carry the trace id:\n%s", srv.Logs())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHealthEndpoints(t *testing.T) {
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	if r := e2e.Do(t, "GET", srv.URL+"/healthz", nil); r.Status != 200 {
		t.Fatalf("healthz %d", r.Status)
	}
	if r := e2e.Do(t, "GET", srv.URL+"/readyz", nil); r.Status != 200 {
		t.Fatalf("readyz %d", r.Status)
	}
	e2e.Do(t, "GET", srv.URL+"/v0/nowhere", nil)
	r := e2e.Do(t, "GET", srv.URL+"/metrics", nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), "http_server_request_duration_seconds_bucket") ||
		!strings.Contains(string(r.Body), `route="unmatched"`) || strings.Contains(string(r.Body), "/v0/nowhere") {
		t.Fatalf("metrics %d:\n%.2000s", r.Status, r.Body)
	}
}

// TestServeGCPercent: serve collects garbage at GOGC=400 unless GOGC says
// otherwise (the runtime's own gauge on /metrics tells).
func TestServeGCPercent(t *testing.T) {
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{nil, "go_gc_gogc_percent 400\n"},
		{[]string{"GOGC=150"}, "go_gc_gogc_percent 150\n"},
	} {
		srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, tt.env...))
		if r := e2e.Do(t, "GET", srv.URL+"/metrics", nil); !strings.Contains(string(r.Body), tt.want) {
			t.Errorf("with %v, /metrics has no %q", tt.env, tt.want)
		}
	}
}

// TestReadyzRequiresLatestSchema: against a database the binary has not
// migrated, the server runs but is not ready.
func TestReadyzRequiresLatestSchema(t *testing.T) {
	dsn := e2e.ScratchDatabase(t, false)
	srv := e2e.LaunchServer(t, e2e.BaseEnv(dsn))
	srv.WaitFor(t, "/healthz", 200)
	r := e2e.Do(t, "GET", srv.URL+"/readyz", nil)
	e2e.WantProblem(t, r, 503, "unavailable")
	e2e.MustCLI(t, e2e.BaseEnv(dsn), "migrate", "up")
	srv.WaitFor(t, "/readyz", 200)
}

func TestPortClashFailsStartUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN, "HTTP_ADDR="+ln.Addr().String()), "serve")
	if r.Code != 1 || !strings.Contains(r.Stderr, "address already in use") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestShutdownDrains: on SIGTERM /readyz turns 503 at once, an in-flight
// request completes, and the process exits 0.
func TestShutdownDrains(t *testing.T) {
	seedFoundation(t)
	proxy := newTCPProxy(t, dbAddr(t))
	srv := e2e.StartServer(t, e2e.BaseEnv(proxy.dsn(t), "SHUTDOWN_DELAY=1s"))
	tok := e2e.MintToken(t, "org_e2e_fd_a", "locations")
	e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+tok) // warm the pool

	proxy.pause()
	inflight := make(chan e2e.Response, 1)
	go func() {
		inflight <- e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+tok)
	}()
	proxy.waitHeld(t) // the request now waits on the database
	if err := srv.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	srv.WaitFor(t, "/readyz", 503) // at once, and for the whole delay: the listener still answers
	proxy.resume()
	if r := <-inflight; r.Status != 200 {
		t.Fatalf("in-flight request: %d %s", r.Status, r.Body)
	}
	if err := srv.Wait(30 * time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.Logs())
	}
}

// TestDatabaseOutage: while the database is unreachable the API answers
// 503 unavailable with Retry-After; when it returns the service recovers by
// itself.
func TestDatabaseOutage(t *testing.T) {
	seedFoundation(t)
	proxy := newTCPProxy(t, dbAddr(t))
	srv := e2e.StartServer(t, e2e.BaseEnv(proxy.dsn(t)))
	tok := e2e.MintToken(t, "org_e2e_fd_a", "locations")
	get := func() e2e.Response {
		return e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+tok)
	}
	if r := get(); r.Status != 200 {
		t.Fatalf("before the outage: %d", r.Status)
	}
	proxy.down()
	r := get()
	e2e.WantProblem(t, r, 503, "unavailable")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	e2e.WantProblem(t, e2e.Do(t, "GET", srv.URL+"/readyz", nil), 503, "unavailable")
	if strings.Contains(string(r.Body), "SELECT") || strings.Contains(string(r.Body), "127.0.0.1") {
		t.Fatalf("the 503 leaks internals: %s", r.Body)
	}
	proxy.up()
	srv.WaitFor(t, "/readyz", 200)
	if r := get(); r.Status != 200 {
		t.Fatalf("after the outage: %d %s", r.Status, r.Body)
	}
	if strings.Contains(srv.Logs(), "SELECT") {
		t.Fatalf("a log line carries SQL:\n%s", srv.Logs())
	}
}
