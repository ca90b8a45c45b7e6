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
	}
	reg.MustRegister(m.RequestDuration)
	return m
}
