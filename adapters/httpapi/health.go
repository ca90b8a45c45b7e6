package httpapi

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// ReadinessChecker tells whether the database answers and its schema is at
// the binary's latest migration.
type ReadinessChecker interface {
	Ready(ctx context.Context) error
}

// ReadinessTimeout bounds the database check of /readyz, so that it answers
// within the second or two a Kubernetes probe waits, whatever the database
// does.
const ReadinessTimeout = time.Second

// Health serves /healthz, /readyz and /metrics. /healthz touches nothing:
// a database outage must not make Kubernetes restart healthy pods. None of
// them is subject to admission control.
type Health struct {
	checker  ReadinessChecker
	metrics  *telemetry.Metrics
	draining atomic.Bool
}

// NewHealth builds the health routes.
func NewHealth(c ReadinessChecker, m *telemetry.Metrics) *Health {
	return &Health{checker: c, metrics: m}
}

// Drain makes /readyz answer 503 from now on: shutdown has begun.
func (h *Health) Drain() { h.draining.Store(true) }

// Register implements Routes.
func (h *Health) Register(r *mux.Router) {
	r.HandleFunc("/healthz", h.live).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/readyz", h.ready).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/metrics", promhttp.HandlerFor(h.metrics.Registry, promhttp.HandlerOpts{
		// OpenMetrics when the scraper asks for it: the text format cannot
		// carry the exemplars (trace IDs) of the latency histogram.
		EnableOpenMetrics: true,
	})).Methods(http.MethodGet)
}

func (h *Health) live(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (h *Health) ready(w http.ResponseWriter, r *http.Request) {
	if h.draining.Load() {
		WriteProblem(w, r, NewProblem(http.StatusServiceUnavailable, "unavailable", "shutting down"))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), ReadinessTimeout)
	defer cancel()
	if err := h.checker.Ready(ctx); err != nil {
		WriteProblem(w, r, NewProblem(http.StatusServiceUnavailable, "unavailable", err.Error()))
		return
	}
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
