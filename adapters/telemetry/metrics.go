package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the service's Prometheus collectors on a registry of its own
// (no global state, so tests can build many).
type Metrics struct {
	Registry        *prometheus.Registry
	RequestDuration *prometheus.HistogramVec
	// RequestsShed counts requests refused by load shedding, by route.
	RequestsShed *prometheus.CounterVec
	// RequestsTimedOut counts requests answered 503 because their deadline
	// passed or a lock or statement timed out, by route.
	RequestsTimedOut *prometheus.CounterVec
}

// NewMetrics registers the Go runtime and process collectors and the HTTP
// request histogram (by route template, method and status code; the route
// template keeps the label set bounded).
func NewMetrics() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: reg,
		RequestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_server_request_duration_seconds",
			Help:    "Duration of HTTP requests by route template, method and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method", "code"}),
		RequestsShed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fulfillment_http_requests_shed_total",
			Help: "Requests refused with 503 by load shedding, by route template.",
		}, []string{"route"}),
		RequestsTimedOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fulfillment_http_requests_timed_out_total",
			Help: "Requests answered 503 because their deadline passed or a lock or statement timed out, by route template.",
		}, []string{"route"}),
	}
	reg.MustRegister(m.RequestDuration, m.RequestsShed, m.RequestsTimedOut)
	return m
}
