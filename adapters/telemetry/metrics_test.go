package telemetry_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// A sampled request leaves its trace ID as the exemplar of its bucket; an
// unsampled one leaves none (its trace was not exported: a link to it would
// lead nowhere).
func TestObserveRequestExemplars(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		sampler sdktrace.Sampler
		want    bool
	}{
		{"sampled", sdktrace.AlwaysSample(), true},
		{"not sampled", sdktrace.NeverSample(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tt.sampler))
			sctx, span := tp.Tracer("test").Start(ctx, "op")
			span.End()
			m := telemetry.NewMetrics()
			m.ObserveRequest(sctx, "/v0/warehouses", "GET", "200", 0.003)
			families, err := m.Registry.Gather()
			if err != nil {
				t.Fatal(err)
			}
			var exemplars []string
			for _, f := range families {
				if f.GetName() != "http_server_request_duration_seconds" {
					continue
				}
				for _, b := range f.GetMetric()[0].GetHistogram().GetBucket() {
					if e := b.GetExemplar(); e != nil {
						for _, l := range e.GetLabel() {
							exemplars = append(exemplars, l.GetName()+"="+l.GetValue())
						}
						if e.GetValue() != 0.003 || b.GetUpperBound() != 0.005 {
							t.Errorf("exemplar %v in bucket le=%v, want value 0.003 in le=0.005", e.GetValue(), b.GetUpperBound())
						}
					}
				}
			}
			want := []string{"trace_id=" + span.SpanContext().TraceID().String()}
			if !tt.want {
				want = nil
			}
			if len(exemplars) != len(want) || (len(want) > 0 && exemplars[0] != want[0]) {
				t.Errorf("exemplars %v, want %v", exemplars, want)
			}
		})
	}
}

// The families of dashboards and alerts exist with all their known series
// at 0 before anything happened.
func TestNewMetricsStartsKnownSeriesAtZero(t *testing.T) {
	m := telemetry.NewMetrics()
	m.InitRoutes([]string{"/v0/storefront/orders", "/v0/shipments"})
	for _, tt := range []struct {
		name string
		n    int
	}{
		{"fulfillment_storefront_orders_total", 3 + len(telemetry.IntakeRefusalCodes) + len(telemetry.IntakeFailureCodes)},
		{"fulfillment_shipment_transitions_total", len(telemetry.ShipmentKinds) * len(telemetry.ShipmentStatuses)},
		{"fulfillment_http_requests_shed_total", 2},
		{"fulfillment_http_requests_timed_out_total", 2},
	} {
		if got, err := testutil.GatherAndCount(m.Registry, tt.name); err != nil || got != tt.n {
			t.Errorf("%s: %d series (%v), want %d", tt.name, got, err, tt.n)
		}
	}
	if got := testutil.ToFloat64(m.IntakeOrders.WithLabelValues("refused", "unknown_skus")); got != 0 {
		t.Errorf("refused/unknown_skus = %v before any delivery", got)
	}
	m.ObserveIntake(telemetry.IntakeRefused, "unknown_skus")
	m.ObserveShipmentTransition("spd", "draft")
	if a, b := testutil.ToFloat64(m.IntakeOrders.WithLabelValues("refused", "unknown_skus")),
		testutil.ToFloat64(m.ShipmentTransitions.WithLabelValues("spd", "draft")); a != 1 || b != 1 {
		t.Errorf("after one of each: orders %v, transitions %v; want 1 and 1", a, b)
	}
}

func TestBuildInfo(t *testing.T) {
	m := telemetry.NewMetrics()
	m.Registry.MustRegister(telemetry.BuildInfo("1.2.3"))
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "fulfillment_build_info" {
			continue
		}
		got := map[string]string{}
		for _, l := range f.GetMetric()[0].GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if got["version"] != "1.2.3" || got["goversion"] != runtime.Version() || f.GetMetric()[0].GetGauge().GetValue() != 1 {
			t.Errorf("build info %v = %v", got, f.GetMetric()[0].GetGauge().GetValue())
		}
		return
	}
	t.Error("fulfillment_build_info not gathered")
}
