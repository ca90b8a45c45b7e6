package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/ratelimit/redistest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// Rate limits end to end (docs/rate-limits.md): the real binary, buckets in
// a private redis-server, every answer checked against api/openapi.yaml by
// the harness (the 429s and the RateLimit headers included).

// rlFixture: two organizations sharing one warehouse, a second warehouse,
// and an organization with its own limit in the fixture.
func rlFixture() map[string]any {
	return map[string]any{
		"organizations": []any{
			e2e.FixtureOrg("org_e2e_rl_a", "Limited A"),
			e2e.FixtureOrg("org_e2e_rl_b", "Limited B"),
			e2e.FixtureOrg("org_e2e_rl_c", "Limited C"),
			e2e.FixtureOrg("org_e2e_rl_raise", "Raised"),
			e2e.FixtureOrg("org_e2e_rl_back", "Back To Default"),
			map[string]any{"id": "org_e2e_rl_own", "name": "Own Limit", "rateLimit": "1/h", "rateLimitBurst": 3},
		},
		"warehouses": []any{
			e2e.FixtureWarehouse("wh_e2e_rl_1", "RL One", true, "org_e2e_rl_a", "org_e2e_rl_b"),
			e2e.FixtureWarehouse("wh_e2e_rl_2", "RL Two", true, "org_e2e_rl_a"),
		},
	}
}

var seedRL = e2e.SeedFixtureOnce("rate limit", rlFixture)

// rlEnv is the environment of a server whose buckets are in redisURL,
// with the limit 1 per hour (nothing refills within a test) and burst.
func rlEnv(redisURL string, burst int) []string {
	return e2e.BaseEnv(e2e.TestDSN, "RATE_LIMIT=1/h", "RATE_LIMIT_BURST="+strconv.Itoa(burst), "RATE_LIMIT_REDIS_URL="+redisURL)
}

var (
	policyHeader    = regexp.MustCompile(`^"(org|warehouse)";q=(\d+);w=(\d+)$`)
	remainingHeader = regexp.MustCompile(`^"(org|warehouse)";r=(\d+);t=(\d+)$`)
)

// rlGet sends a GET as token and checks the answer's rate-limit headers: a
// 200 with the policy and what remains, or a 429 rate_limited with
// Retry-After ≥ 1. It reports whether the request was served.
func rlGet(t *testing.T, srv *e2e.Server, path, token, scope string, burst int) bool {
	t.Helper()
	r := e2e.Do(t, "GET", srv.URL+path, nil, "Authorization", "Bearer "+token)
	if m := policyHeader.FindStringSubmatch(r.Header.Get("RateLimit-Policy")); m == nil || m[1] != scope || m[2] != strconv.Itoa(burst) {
		t.Errorf("%s: RateLimit-Policy %q, want %q;q=%d;w=…", path, r.Header.Get("RateLimit-Policy"), scope, burst)
	}
	m := remainingHeader.FindStringSubmatch(r.Header.Get("RateLimit"))
	if m == nil || m[1] != scope {
		t.Errorf("%s: RateLimit %q, want %q;r=…;t=…", path, r.Header.Get("RateLimit"), scope)
	}
	switch r.Status {
	case 200:
		return true
	case 429:
		e2e.WantProblem(t, r, 429, "rate_limited")
		if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 1 {
			t.Errorf("429 with Retry-After %q, want whole seconds ≥ 1", r.Header.Get("Retry-After"))
		}
		if m != nil && m[2] != "0" {
			t.Errorf("429 with RateLimit %q, want r=0", r.Header.Get("RateLimit"))
		}
		return false
	default:
		t.Fatalf("%s: %d %s, want 200 or 429", path, r.Status, r.Body)
		return false
	}
}

// Two instances on one Redis share one bucket per organization: the burst
// is allowed once, not once per instance; another organization, and each
// warehouse, has a bucket of its own.
func TestRateLimitsSharedByInstancesAndIsolated(t *testing.T) {
	seedRL(t)
	redis := redistest.Start(t)
	const burst = 4
	one, two := e2e.StartServer(t, rlEnv(redis.URL(), burst)), e2e.StartServer(t, rlEnv(redis.URL(), burst))
	tokenA, tokenB := e2e.MintToken(t, "org_e2e_rl_a", "locations"), e2e.MintToken(t, "org_e2e_rl_b", "locations")

	served := 0
	for i := range 2 * burst {
		srv := one
		if i%2 == 1 {
			srv = two
		}
		if rlGet(t, srv, "/v0/warehouses", tokenA, "org", burst) {
			served++
		}
	}
	if served != burst {
		t.Errorf("two instances served %d of %d requests of one organization, want its burst of %d once", served, 2*burst, burst)
	}
	if got := countServed(t, two, "/v0/warehouses", tokenB, "org", burst, burst+1); got != burst {
		t.Errorf("organization B after A ran out: %d of %d served, want its own %d", got, burst+1, burst)
	}

	wh1, wh2 := e2e.MintWarehouseToken(t, "wh_e2e_rl_1"), e2e.MintWarehouseToken(t, "wh_e2e_rl_2")
	if got := countServed(t, one, "/v0/warehouse/shipments", wh1, "warehouse", burst, burst+2); got != burst {
		t.Errorf("warehouse 1: %d of %d served, want %d", got, burst+2, burst)
	}
	if got := countServed(t, two, "/v0/warehouse/shipments", wh2, "warehouse", burst, burst+1); got != burst {
		t.Errorf("warehouse 2 after warehouse 1 ran out: %d of %d served, want its own %d", got, burst+1, burst)
	}
	if n := metricValue(t, one, `fulfillment_rate_limited_total{scope="org"}`) + metricValue(t, two, `fulfillment_rate_limited_total{scope="org"}`); n != float64(burst+1) {
		t.Errorf("fulfillment_rate_limited_total{scope=org} over both instances: %v, want %d", n, burst+1)
	}
}

func countServed(t *testing.T, srv *e2e.Server, path, token, scope string, burst, n int) int {
	t.Helper()
	served := 0
	for range n {
		if rlGet(t, srv, path, token, scope, burst) {
			served++
		}
	}
	return served
}

// metricValue reads one series from /metrics (0 when absent).
func metricValue(t *testing.T, srv *e2e.Server, series string) float64 {
	t.Helper()
	r := e2e.Do(t, "GET", srv.URL+"/metrics", nil)
	for _, line := range strings.Split(string(r.Body), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("metric %s: %q", series, line)
			}
			return v
		}
	}
	return 0
}

// The storefront webhook is never limited: a burst of deliveries with the
// limit at 1/s (burst 1) is served whole, and no delivery carries the
// headers.
func TestRateLimitsNeverLimitTheWebhook(t *testing.T) {
	intakeServer(t)
	redis := redistest.Start(t)
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "RATE_LIMIT=1/s", "RATE_LIMIT_BURST=1", "RATE_LIMIT_REDIS_URL="+redis.URL()))
	var wg sync.WaitGroup
	answers := make(chan e2e.Response, 30)
	for i := range 30 {
		wg.Go(func() { answers <- e2e.Deliver(t, srv, intakeKeyA, smallOrder(int64(8800000+i), "KEY-LTH-01", "1")) })
	}
	wg.Wait()
	close(answers)
	for r := range answers {
		if r.Status == 503 && r.Header.Get("Retry-After") != "" {
			continue // shed by the admission on a slow machine: not a limit
		}
		if r.Status != 200 || r.Header.Get("RateLimit") != "" || r.Header.Get("RateLimit-Policy") != "" {
			t.Errorf("a delivery: %d %v %s, want 200 without rate-limit headers", r.Status, r.Header, r.Body)
		}
	}
	if n := metricValue(t, srv, `fulfillment_rate_limited_total{scope="org"}`); n != 0 {
		t.Errorf("fulfillment_rate_limited_total{scope=org} = %v after deliveries only", n)
	}
	// The OAuth API of the same organization is limited at once.
	if rlGet(t, srv, "/v0/shipments", intakeTokenA, "org", 1); rlGet(t, srv, "/v0/shipments", intakeTokenA, "org", 1) {
		t.Error("the second request within a second at 1/s was served")
	}
}

// Redis stopped in the middle of a run: requests are served (without the
// RateLimit header) at once — after the first failure Redis is not asked
// by requests until a background probe finds it back —, counted in
// fulfillment_rate_limit_backend_errors_total, and warned about once in a
// JSON line (go-redis's own lines are JSON too); with Redis back the limits
// apply again within the probe's second.
func TestRateLimitsFailOpenWithoutRedis(t *testing.T) {
	seedRL(t)
	redis := redistest.Start(t)
	const burst = 2
	srv := e2e.StartServer(t, rlEnv(redis.URL(), burst))
	token := e2e.MintToken(t, "org_e2e_rl_a", "locations")
	if got := countServed(t, srv, "/v0/warehouses", token, "org", burst, burst+1); got != burst {
		t.Fatalf("with Redis: %d of %d served, want %d", got, burst+1, burst)
	}
	redis.Stop()
	const n = 20
	var took []time.Duration
	for i := range n {
		start := time.Now()
		r := e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+token)
		took = append(took, time.Since(start))
		if r.Status != 200 || r.Header.Get("RateLimit") != "" || r.Header.Get("RateLimit-Policy") == "" {
			t.Fatalf("request %d with Redis stopped: %d %v, want 200 with the policy and no RateLimit", i, r.Status, r.Header)
		}
	}
	// The first may wait for the failing question (at most 250 ms); the
	// others do not ask: a whole list request is a few milliseconds.
	slices.Sort(took[1:])
	if median := took[1+(n-1)/2]; median > 50*time.Millisecond {
		t.Errorf("with Redis known to be down, the median request took %s (all but the first: %v), want no wait for Redis", median, took[1:])
	}
	if n := metricValue(t, srv, "fulfillment_rate_limit_backend_errors_total"); n != 20 {
		t.Errorf("fulfillment_rate_limit_backend_errors_total = %v, want 20", n)
	}
	if n := strings.Count(srv.Logs(), "rate limits not applied"); n != 1 {
		t.Errorf("%d warnings for 20 failures, want 1", n)
	}
	if strings.Contains(srv.Logs(), redis.URL()) {
		t.Error("the log repeats the Redis URL")
	}
	redis.Start() // empty: the bucket starts full
	deadline := time.Now().Add(3 * time.Second)
	for e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+e2e.MintToken(t, "org_e2e_rl_b", "locations")).Header.Get("RateLimit") == "" {
		if time.Now().After(deadline) {
			t.Fatal("Redis back for 3 s and the limits do not apply")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := countServed(t, srv, "/v0/warehouses", token, "org", burst, burst+1); got != burst {
		t.Errorf("Redis back: %d of %d served, want %d", got, burst+1, burst)
	}
	for _, line := range strings.Split(strings.TrimSpace(srv.Logs()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a line on stderr is not JSON: %q", line)
		}
	}
}

// A raised limit is granted as GCRA reads it, in the default (in-memory)
// store: a client whose bucket was full at 5/s burst 10, raised to 100/s
// burst 200, may send far more than 10 at once.
func TestRaisedLimitGrantsTheNewBurstInMemory(t *testing.T) {
	seedRL(t)
	env := e2e.BaseEnv(e2e.TestDSN, "RATE_LIMIT=5/s", "RATE_LIMIT_BURST=10")
	srv := e2e.StartServer(t, env)
	token := e2e.MintToken(t, "org_e2e_rl_raise", "locations")
	if served, _ := burstGET(t, srv, token, 30); served > 12 {
		t.Fatalf("5/s burst 10: %d of 30 served at once", served)
	}
	time.Sleep(2500 * time.Millisecond) // the bucket refills (10 at 5/s: 2 s)
	e2e.MustCLI(t, env, "orgs", "limit", "--org", "org_e2e_rl_raise", "--rate", "100/s", "--burst", "200")
	waitPolicy(t, srv, token, `"org";q=200;`)
	if served, refused := burstGET(t, srv, token, 150); served != 150 {
		t.Errorf("raised to 100/s burst 200 from a full bucket: %d of 150 served at once (%d refused), want all", served, refused)
	}
}

// `orgs limit --default` gives an organization the default limit back,
// within a second on the serving process; `--burst 0` is bad usage.
func TestOrgsLimitBackToTheDefault(t *testing.T) {
	seedRL(t)
	env := e2e.BaseEnv(e2e.TestDSN, "RATE_LIMIT=1/h", "RATE_LIMIT_BURST=2")
	srv := e2e.StartServer(t, env)
	const org = "org_e2e_rl_back"
	token := e2e.MintToken(t, org, "locations")
	e2e.MustCLI(t, env, "orgs", "limit", "--org", org, "--rate", "1/h", "--burst", "500")
	waitPolicy(t, srv, token, `"org";q=500;`)

	for _, bad := range [][]string{
		{"--rate", "5/s", "--burst", "0"},
		{"--rate", "5/s", "--burst", "-1"},
		{"--default", "--rate", "5/s"},
		{"--default", "--burst", "5"},
		{},
	} {
		r := e2e.RunCLI(t, env, append([]string{"orgs", "limit", "--org", org}, bad...)...)
		if first, _, _ := strings.Cut(r.Stderr, "\n"); r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(first, "fulfillment: orgs limit") {
			t.Errorf("orgs limit %v: exit %d, stdout %q, stderr %q; want 2 and the mistake on the first line", bad, r.Code, r.Stdout, first)
		}
	}
	if r := e2e.RunCLI(t, env, "orgs", "limit", "--org", "org_e2e_rl_nobody", "--default"); r.Code != 1 || !strings.Contains(r.Stderr, "org_e2e_rl_nobody") {
		t.Errorf("orgs limit --default of an unknown organization: exit %d %q, want 1 naming it", r.Code, r.Stderr)
	}
	time.Sleep(time.Second) // the refresh's period: nothing was changed by the refused commands
	if p := e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+token).Header.Get("RateLimit-Policy"); !strings.HasPrefix(p, `"org";q=500;`) {
		t.Errorf("after refused commands the policy is %q, want the limit set before (q=500)", p)
	}

	out := e2e.MustCLI(t, env, "orgs", "limit", "--org", org, "--default")
	if !strings.Contains(out, org) || !strings.Contains(out, "default") {
		t.Errorf("orgs limit --default printed %q", out)
	}
	waitPolicy(t, srv, token, `"org";q=2;`)
}

// waitPolicy waits, at most a second, until srv answers token's requests
// with a RateLimit-Policy starting with prefix. It asks five times a
// second at most, so that a bucket of 5/s or more is not emptied by it.
func waitPolicy(t *testing.T, srv *e2e.Server, token, prefix string) {
	t.Helper()
	set := time.Now()
	for {
		r := e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+token)
		if strings.HasPrefix(r.Header.Get("RateLimit-Policy"), prefix) {
			t.Logf("the policy %s applied %s after the command", prefix, time.Since(set).Round(time.Millisecond))
			return
		}
		if time.Since(set) > time.Second {
			t.Fatalf("1s after orgs limit the server still answers with the policy %q, want %s…", r.Header.Get("RateLimit-Policy"), prefix)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// burstGET sends n list requests as token from 16 clients at once and
// counts the answers 200 and 429.
func burstGET(t *testing.T, srv *e2e.Server, token string, n int) (served, refused int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failed []string
	next := make(chan struct{}, n)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range 16 {
		wg.Go(func() {
			for range next {
				req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/v0/warehouses", nil)
				if err != nil {
					panic(err)
				}
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := http.DefaultClient.Do(req)
				mu.Lock()
				switch {
				case err != nil:
					failed = append(failed, err.Error())
				case resp.StatusCode == 200:
					served++
				case resp.StatusCode == 429:
					refused++
				default:
					failed = append(failed, resp.Status)
				}
				mu.Unlock()
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
		})
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Errorf("a burst of %d: answers other than 200 and 429: %v", n, failed)
	}
	return served, refused
}

// An organization's own limit: the fixture's rateLimit applies from the
// start, and `orgs limit` applies within a second on every instance.
func TestOrganizationLimitsApplyOnEveryInstance(t *testing.T) {
	seedRL(t)
	redis := redistest.Start(t)
	const burst = 2
	one, two := e2e.StartServer(t, rlEnv(redis.URL(), burst)), e2e.StartServer(t, rlEnv(redis.URL(), burst))

	own := e2e.MintToken(t, "org_e2e_rl_own", "locations")
	if got := countServed(t, one, "/v0/warehouses", own, "org", 3, 4); got != 3 {
		t.Errorf("the fixture's organization with rateLimit 1/h burst 3: %d of 4 served, want 3", got)
	}

	env := rlEnv(redis.URL(), burst)
	if r := e2e.RunCLI(t, env, "orgs", "limit", "--org", "org_e2e_rl_c", "--rate", "fast"); r.Code != 2 {
		t.Errorf("orgs limit with a bad rate: exit %d, want 2 (%s)", r.Code, r.Stderr)
	}
	if r := e2e.RunCLI(t, env, "orgs", "limit", "--org", "org_e2e_rl_nobody", "--rate", "5/s"); r.Code != 1 || !strings.Contains(r.Stderr, "org_e2e_rl_nobody") {
		t.Errorf("orgs limit of an unknown organization: exit %d %q, want 1 naming it", r.Code, r.Stderr)
	}
	token := e2e.MintToken(t, "org_e2e_rl_c", "locations")
	if got := countServed(t, two, "/v0/warehouses", token, "org", burst, burst+1); got != burst {
		t.Fatalf("before orgs limit: %d of %d served, want the default burst %d", got, burst+1, burst)
	}
	out := e2e.MustCLI(t, env, "orgs", "limit", "--org", "org_e2e_rl_c", "--rate", "1/h", "--burst", "6")
	set := time.Now()
	if !strings.Contains(out, "org_e2e_rl_c") {
		t.Errorf("orgs limit printed %q", out)
	}
	for _, srv := range []*e2e.Server{one, two} {
		for {
			r := e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+token)
			if strings.HasPrefix(r.Header.Get("RateLimit-Policy"), `"org";q=6;`) {
				break
			}
			if time.Since(set) > time.Second {
				t.Fatalf("1s after orgs limit an instance still answers with the policy %q", r.Header.Get("RateLimit-Policy"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Logf("the new limit applied on both instances %s after the command", time.Since(set).Round(time.Millisecond))
}
