package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// fakeReadiness answers Ready with err and counts the calls.
type fakeReadiness struct {
	err   error
	calls atomic.Int32
}

func (f *fakeReadiness) Ready(context.Context) error {
	f.calls.Add(1)
	return f.err
}

// healthServer is NewHandler with the health routes of checker.
func healthServer(t *testing.T, checker httpapi.ReadinessChecker) (*httpapi.Health, *testServer) {
	t.Helper()
	m := telemetry.NewMetrics()
	h := httpapi.NewHealth(checker, m)
	s := newTestServer(t, h)
	return h, s
}

func TestHealthLiveness(t *testing.T) {
	checker := &fakeReadiness{err: errors.New("database down")}
	h, s := healthServer(t, checker)
	for _, drained := range []bool{false, true} {
		if drained {
			h.Drain()
		}
		w := s.do(httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if w.Code != http.StatusOK {
			t.Errorf("drained %v: /healthz = %d, want 200 (liveness touches no dependency)", drained, w.Code)
		}
	}
	if n := checker.calls.Load(); n != 0 {
		t.Errorf("/healthz asked the readiness checker %d times, want 0", n)
	}
}

func TestHealthReadiness(t *testing.T) {
	tests := []struct {
		name       string
		readyErr   error
		wantStatus int
	}{
		{"ready", nil, http.StatusOK},
		{"database down", errors.New("dial tcp 127.0.0.1:5432: connection refused"), http.StatusServiceUnavailable},
		{"schema behind", errors.New("schema at 3, binary wants 5"), http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s := healthServer(t, &fakeReadiness{err: tt.readyErr})
			w := s.do(httptest.NewRequest(http.MethodGet, "/readyz", nil))
			if w.Code != tt.wantStatus {
				t.Fatalf("/readyz = %d, want %d", w.Code, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusServiceUnavailable {
				if p := problemOf(t, w); p.Code != "unavailable" {
					t.Errorf("problem code = %q, want unavailable", p.Code)
				}
				if w.Header().Get("Retry-After") == "" {
					t.Error("503 without Retry-After")
				}
			}
		})
	}
}

func TestHealthReadinessAfterDrain(t *testing.T) {
	h, s := healthServer(t, &fakeReadiness{})
	if w := s.do(httptest.NewRequest(http.MethodGet, "/readyz", nil)); w.Code != http.StatusOK {
		t.Fatalf("/readyz before Drain = %d, want 200", w.Code)
	}
	h.Drain()
	w := s.do(httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz after Drain = %d, want 503", w.Code)
	}
	if p := problemOf(t, w); p.Code != "unavailable" {
		t.Errorf("problem code = %q, want unavailable", p.Code)
	}
}

func TestHealthMetrics(t *testing.T) {
	_, s := healthServer(t, &fakeReadiness{})
	w := s.do(httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("/metrics = %d, want 200", w.Code)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q, want Prometheus text format", ct)
	}
	if !strings.Contains(w.Body.String(), "go_goroutines") {
		t.Errorf("/metrics lacks the Go collector: %.200s", w.Body.String())
	}
}
