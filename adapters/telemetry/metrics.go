package telemetry

import (
	"context"
	"runtime"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/domain/shipping"
)

// Metrics are the service's Prometheus collectors on a registry of its own
// (no global state, so tests can build many). Every label value is one of a
// fixed set (route templates, status codes, the outcomes and codes below),
// so the number of series is bounded whatever clients send. docs/observability.md
// describes each family.
type Metrics struct {
	Registry        *prometheus.Registry
	RequestDuration *prometheus.HistogramVec
	// IntakeOrders counts answered order deliveries by outcome and code.
	IntakeOrders *prometheus.CounterVec
	// ShipmentTransitions counts committed shipment changes by kind and
	// the status reached.
	ShipmentTransitions *prometheus.CounterVec
	// RequestsShed counts requests refused by load shedding, by route.
	RequestsShed *prometheus.CounterVec
	// RequestsTimedOut counts requests answered 503 because their deadline
	// passed or a lock or statement timed out, by route.
	RequestsTimedOut *prometheus.CounterVec
	// UnitsReceived counts the units of new warehouse receipts by kind of
	// item (warehouse_metrics.go).
	UnitsReceived *prometheus.CounterVec
	// BillingCharges counts accrued charges by fee; BillingInvoices
	// invoice transitions by the status reached (billing.go).
	BillingCharges  *prometheus.CounterVec
	BillingInvoices *prometheus.CounterVec
	// FairUse: the admission's decisions and the rate limits
	// (fair_use_metrics.go).
	FairUse FairUse
}

// Outcomes of an order delivery: the label values of
// fulfillment_storefront_orders_total{outcome}.
const (
	IntakeCreated   = "created"   // a shipment was made
	IntakeDuplicate = "duplicate" // the order had been processed: same answer again
	IntakeSkipped   = "skipped"   // acknowledged and recorded without a shipment
	IntakeRefused   = "refused"   // 4xx: the delivery or the order is at fault
	IntakeFailed    = "failed"    // 5xx: the service is at fault; the storefront retries
)

// IntakeRefusalCodes and IntakeFailureCodes are the intake's error codes,
// the values of the code label of refused and failed deliveries.
var (
	IntakeRefusalCodes = []string{
		"invalid_api_key", "invalid_signature", "insufficient_scope", "invalid_payload", "payload_too_large",
		"unsupported_media_type", "unknown_skus", "missing_sku", "missing_shipping_address", "no_warehouse",
	}
	IntakeFailureCodes = []string{"unavailable", "internal"}
)

// Shipment kinds and the statuses a transition reaches: the label values of
// fulfillment_shipment_transitions_total, the domain's lists of them.
var (
	ShipmentKinds    = labelValues(shipping.ShipmentKinds)
	ShipmentStatuses = labelValues(shipping.ShipmentStatuses)
)

// labelValues are the values of a closed set of the domain as label values.
func labelValues[S ~[]E, E ~string](set S) []string {
	out := make([]string, len(set))
	for i, v := range set {
		out[i] = string(v)
	}
	return out
}

// NewMetrics registers the Go runtime and process collectors and the
// service's own families, with every series of a known label set already
// at 0: a rate() or an alert over them has data before the first event.
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
		IntakeOrders: newCounterVec("fulfillment_storefront_orders_total",
			"Storefront order deliveries answered, by outcome (created, duplicate, skipped, refused, failed) and, for refused and failed, the error code.",
			"outcome", "code"),
		ShipmentTransitions: newCounterVec("fulfillment_shipment_transitions_total",
			"Shipment changes committed, by kind ("+strings.Join(ShipmentKinds, ", ")+") and the status reached ("+
				strings.Join(ShipmentStatuses, ", ")+").",
			"kind", "status"),
		RequestsShed: newCounterVec("fulfillment_http_requests_shed_total",
			"Requests refused with 503 by load shedding, by route template.",
			"route"),
		RequestsTimedOut: newCounterVec("fulfillment_http_requests_timed_out_total",
			"Requests answered 503 because their deadline passed or a lock or statement timed out, by route template.",
			"route"),
		UnitsReceived: newUnitsReceived(),
	}
	m.BillingCharges = newCounterVec("fulfillment_billing_charges_total",
		"Billing charges accrued, by fee (a rate card's fee, service, operator, minimum).",
		"fee")
	m.BillingInvoices = newCounterVec("fulfillment_billing_invoices_total",
		"Invoice status transitions committed by billing and its operator, by the status reached (unpaid: finalized).",
		"status")
	reg.MustRegister(m.RequestDuration, m.IntakeOrders, m.ShipmentTransitions, m.RequestsShed, m.RequestsTimedOut,
		m.UnitsReceived, m.BillingCharges, m.BillingInvoices)
	m.FairUse = newFairUse(reg)
	zeroSeries(m.BillingCharges, BillingFees)
	zeroSeries(m.BillingInvoices, BillingStatuses)
	for _, o := range []string{IntakeCreated, IntakeDuplicate, IntakeSkipped} {
		m.IntakeOrders.WithLabelValues(o, "")
	}
	for _, c := range IntakeRefusalCodes {
		m.IntakeOrders.WithLabelValues(IntakeRefused, c)
	}
	for _, c := range IntakeFailureCodes {
		m.IntakeOrders.WithLabelValues(IntakeFailed, c)
	}
	for _, k := range ShipmentKinds {
		for _, s := range ShipmentStatuses {
			m.ShipmentTransitions.WithLabelValues(k, s)
		}
	}
	zeroSeries(m.UnitsReceived, ItemKinds)
	return m
}

// InitRoutes creates the shed and timed-out series of each route template
// at 0.
func (m *Metrics) InitRoutes(routes []string) {
	for _, r := range routes {
		m.RequestsShed.WithLabelValues(r)
		m.RequestsTimedOut.WithLabelValues(r)
	}
}

// ObserveRequest records one request in the duration histogram. When the
// request's span is sampled, the observation carries the trace ID as an
// exemplar, which links a latency bucket to a trace that is exported.
func (m *Metrics) ObserveRequest(ctx context.Context, route, method, code string, seconds float64) {
	o := m.RequestDuration.WithLabelValues(route, method, code)
	eo, ok := o.(prometheus.ExemplarObserver)
	if sc := trace.SpanContextFromContext(ctx); ok && sc.IsSampled() {
		eo.ObserveWithExemplar(seconds, prometheus.Labels{"trace_id": sc.TraceID().String()})
		return
	}
	o.Observe(seconds)
}

// ObserveIntake counts one answered delivery. code is the error code of a
// refused or failed delivery, "" otherwise.
func (m *Metrics) ObserveIntake(outcome, code string) {
	m.IntakeOrders.WithLabelValues(outcome, code).Inc()
}

// ObserveShipmentTransition counts one committed shipment change: kind is
// pick_pack or spd, status the status reached.
func (m *Metrics) ObserveShipmentTransition(kind, status string) {
	m.ShipmentTransitions.WithLabelValues(kind, status).Inc()
}

// BuildInfo is fulfillment_build_info{version, goversion} 1: which build
// each replica runs, to join with other series or to spot a rollout.
func BuildInfo(version string) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "fulfillment_build_info",
		Help:        "Always 1; the labels name the build: version and the Go release it was built with.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version()},
	})
	g.Set(1)
	return g
}

// newCounterVec is a counter family with the given labels.
func newCounterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// zeroSeries makes the series of each of values (of vec's one label) exist at 0.
func zeroSeries(vec *prometheus.CounterVec, values []string) {
	for _, v := range values {
		vec.WithLabelValues(v)
	}
}
