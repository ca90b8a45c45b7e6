package ratelimit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/ratelimit/redistest"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
)

// perHour is a limit that refills too slowly to matter within a test: its
// burst is what a bucket allows.
func perHour(t testing.TB, burst int) domain.RateLimit {
	t.Helper()
	l, err := domain.ParseRateLimit("1/h", burst)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newRedis(t *testing.T, url string, def domain.RateLimit, m telemetry.FairUse, log *slog.Logger) *ratelimit.Limiter {
	t.Helper()
	opt, err := ratelimit.ParseRedisURL(url)
	if err != nil {
		t.Fatal(err)
	}
	l, closeClient := ratelimit.NewRedis(def, opt, m, log)
	t.Cleanup(func() { _ = closeClient() })
	return l
}

func allowed(l *ratelimit.Limiter, scope, id string, n int) int {
	got := 0
	for range n {
		if l.Allow(context.Background(), scope, id).Allowed {
			got++
		}
	}
	return got
}

// Two instances on one Redis share one bucket: the burst is allowed once,
// not once per instance.
func TestRedisBucketsAreSharedByInstances(t *testing.T) {
	srv := redistest.Start(t)
	discard := slog.New(slog.DiscardHandler)
	m := telemetry.NewMetrics().FairUse
	a := newRedis(t, srv.URL(), perHour(t, 5), m, discard)
	b := newRedis(t, srv.URL(), perHour(t, 5), m, discard)
	got := 0
	for i := range 10 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if l.Allow(context.Background(), ratelimit.ScopeOrg, "org_shared").Allowed {
			got++
		}
	}
	if got != 5 {
		t.Errorf("two instances allowed %d of 10, want the burst of 5 once", got)
	}
	if n := testutil.ToFloat64(m.RateLimited.WithLabelValues("org")); n != 5 {
		t.Errorf("fulfillment_rate_limited_total{scope=org} = %v, want 5", n)
	}
	if n := testutil.ToFloat64(m.RateLimitedOrganizations.WithLabelValues("org_shared")); n != 5 {
		t.Errorf("refused of org_shared = %v, want 5", n)
	}
}

// Each organization and each warehouse has its own bucket, in either
// store; an organization and a warehouse of the same ID too. The answers
// of the two stores are the same, Remaining and RetryAfter included.
func TestBucketsAreIsolatedAndTheStoresAgree(t *testing.T) {
	srv := redistest.Start(t)
	discard := slog.New(slog.DiscardHandler)
	stores := map[string]*ratelimit.Limiter{
		"redis":  newRedis(t, srv.URL(), perHour(t, 3), telemetry.NewMetrics().FairUse, discard),
		"memory": ratelimit.NewMemory(perHour(t, 3), telemetry.NewMetrics().FairUse, discard),
	}
	var answers []string
	for name, l := range stores {
		t.Run(name, func(t *testing.T) {
			var seen strings.Builder
			for i := range 4 {
				d := l.Allow(context.Background(), ratelimit.ScopeOrg, "org_a")
				seen.WriteString(answer(d))
				if want := i < 3; d.Allowed != want || !d.Known || d.Remaining != max(2-i, 0) {
					t.Errorf("request %d of org_a: %+v, want allowed %v with %d remaining", i, d, want, max(2-i, 0))
				}
				if i == 3 && (d.RetryAfter < 59*60e9 || d.RetryAfter > 60*60e9) {
					t.Errorf("RetryAfter %s over 1/h, want about an hour", d.RetryAfter)
				}
			}
			for _, b := range []struct{ scope, id string }{{ratelimit.ScopeOrg, "org_b"}, {ratelimit.ScopeWarehouse, "org_a"}, {ratelimit.ScopeWarehouse, "wh_1"}} {
				if got := allowed(l, b.scope, b.id, 4); got != 3 {
					t.Errorf("%s %s after org_a's bucket ran out: %d of 4 allowed, want its own 3", b.scope, b.id, got)
				}
			}
			answers = append(answers, seen.String())
		})
	}
	if len(answers) == 2 && answers[0] != answers[1] {
		t.Errorf("the stores disagree: %q against %q", answers[0], answers[1])
	}
}

func answer(d ratelimit.Decision) string {
	if d.Allowed {
		return "y" + string(rune('0'+d.Remaining))
	}
	return "n" + string(rune('0'+d.Remaining))
}

// An organization's own limit replaces the default for it alone.
func TestAnOrganizationsOwnLimit(t *testing.T) {
	srv := redistest.Start(t)
	discard := slog.New(slog.DiscardHandler)
	for name, l := range map[string]*ratelimit.Limiter{
		"redis":  newRedis(t, srv.URL(), perHour(t, 2), telemetry.NewMetrics().FairUse, discard),
		"memory": ratelimit.NewMemory(perHour(t, 2), telemetry.NewMetrics().FairUse, discard),
	} {
		t.Run(name, func(t *testing.T) {
			l.SetLimits(map[string]domain.RateLimit{"org_big": perHour(t, 6)})
			if got := allowed(l, ratelimit.ScopeOrg, "org_big", 8); got != 6 {
				t.Errorf("org_big with its own burst of 6: %d of 8 allowed", got)
			}
			if got := allowed(l, ratelimit.ScopeOrg, "org_small", 8); got != 2 {
				t.Errorf("org_small with the default burst of 2: %d of 8 allowed", got)
			}
			if d := l.Allow(context.Background(), ratelimit.ScopeWarehouse, "org_big"); d.Limit.Burst() != 2 {
				t.Errorf("a warehouse named like the organization has the limit %v, want the default", d.Limit)
			}
		})
	}
}

// With Redis stopped in the middle of a run, requests are allowed (fail
// open) at once: after the first failure Redis is not asked by requests
// until a probe in the background finds it back. Each is counted, the
// warning is logged once, not per request, and the client's own lines are
// JSON too; Redis back, the limits apply again within the probe's second.
func TestRedisStoppedFailsOpen(t *testing.T) {
	srv := redistest.Start(t)
	logs := &syncWriter{}
	m := telemetry.NewMetrics().FairUse
	l := newRedis(t, srv.URL(), perHour(t, 2), m, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if got := allowed(l, ratelimit.ScopeOrg, "org_a", 3); got != 2 {
		t.Fatalf("before the stop: %d of 3 allowed, want 2", got)
	}
	srv.Stop()
	const n = 200
	slowest := time.Duration(0)
	for i := range n {
		start := time.Now()
		d := l.Allow(context.Background(), ratelimit.ScopeOrg, "org_a")
		if took := time.Since(start); i > 0 {
			slowest = max(slowest, took)
		}
		if !d.Allowed || d.Known {
			t.Fatalf("request %d with Redis stopped: %+v, want allowed without a known bucket", i, d)
		}
	}
	if slowest > 50*time.Millisecond { // a dial failing as before takes 250 ms
		t.Errorf("a request with Redis known to be down waited %s, want at once", slowest)
	}
	if got := testutil.ToFloat64(m.RateLimitBackendErrors); got != n {
		t.Errorf("fulfillment_rate_limit_backend_errors_total = %v, want %d", got, n)
	}
	if got := strings.Count(logs.String(), `"level":"WARN"`); got != 1 {
		t.Errorf("%d warnings for %d failures, want 1: %s", got, n, logs.String())
	}
	srv.Start() // an empty Redis: the bucket starts full again
	waitKnown(t, l)
	if got := allowed(l, ratelimit.ScopeOrg, "org_a", 3); got != 2 {
		t.Errorf("after Redis came back: %d of 3 allowed, want 2", got)
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a log line is not JSON: %q", line)
		}
	}
	if !strings.Contains(logs.String(), `"msg":"redis client"`) {
		t.Errorf("the client's own lines are not in the service's log: %s", logs.String())
	}
}

// waitKnown waits until the limiter asks its store again (the probe found
// Redis back), with a bucket of its own.
func waitKnown(t *testing.T, l *ratelimit.Limiter) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !l.Allow(context.Background(), ratelimit.ScopeOrg, "org_probe").Known {
		if time.Now().After(deadline) {
			t.Fatal("Redis back for 3 s and the limiter still does not ask it")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// syncWriter lets the probe's goroutine and the test write one buffer.
type syncWriter struct {
	mu sync.Mutex
	w  bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// The URL's password never shows in an error.
func TestParseRedisURLKeepsThePasswordOut(t *testing.T) {
	for _, raw := range []string{"http://:hunter2@redis:6379", "redis://:hunter2@redis:port", "hunter2"} {
		_, err := ratelimit.ParseRedisURL(raw)
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseRedisURL(%q) = %v, want an error without the password", raw, err)
		}
	}
	if _, err := ratelimit.ParseRedisURL("redis://:hunter2@redis:6379/1"); err != nil {
		t.Errorf("a valid URL: %v", err)
	}
}
