package telemetry_test

import (
	"context"
	"io"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

func TestParseSampler(t *testing.T) {
	tests := []struct {
		name, arg string
		want      string // the sampler's description; "" for an error
		wantErr   string // the variable the error names
	}{
		{"", "", "ParentBased{root:AlwaysOnSampler,", ""},
		{"parentbased_always_on", "", "ParentBased{root:AlwaysOnSampler,", ""},
		{"parentbased_always_off", "", "ParentBased{root:AlwaysOffSampler,", ""},
		{"always_on", "0.1", "AlwaysOnSampler", ""}, // the argument of other samplers is ignored
		{" Always_Off ", "", "AlwaysOffSampler", ""},
		{"traceidratio", "", "TraceIDRatioBased{1}", ""},
		{"traceidratio", "0.25", "TraceIDRatioBased{0.25}", ""},
		{"traceidratio", "0", "TraceIDRatioBased{0}", ""},
		{"parentbased_traceidratio", "0.5", "ParentBased{root:TraceIDRatioBased{0.5},", ""},
		{"traceidratio", "1.5", "", "OTEL_TRACES_SAMPLER_ARG"},
		{"traceidratio", "-0.1", "", "OTEL_TRACES_SAMPLER_ARG"},
		{"parentbased_traceidratio", "half", "", "OTEL_TRACES_SAMPLER_ARG"},
		{"jaeger_remote", "", "", "OTEL_TRACES_SAMPLER"},
		{"always", "", "", "OTEL_TRACES_SAMPLER"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.arg, func(t *testing.T) {
			s, err := telemetry.ParseSampler(tt.name, tt.arg)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr+":") {
					t.Errorf("ParseSampler = %v, %v; want an error naming %s", s, err, tt.wantErr)
				}
				if verr := telemetry.ValidateTracing(telemetry.TracingConfig{Sampler: tt.name, SamplerArg: tt.arg}); verr == nil {
					t.Error("ValidateTracing accepts it")
				}
				return
			}
			if err != nil || !strings.HasPrefix(s.Description(), tt.want) {
				t.Errorf("ParseSampler = %v, %v; want %s…", s.Description(), err, tt.want)
			}
		})
	}
}

// The tracer provider samples as configured: always_off keeps trace IDs
// (every response still carries X-Trace-Id) but records nothing;
// traceidratio samples about its share of root spans.
func TestNewTracerProviderSamples(t *testing.T) {
	ctx := context.Background()
	sampled := func(sampler, arg string) (n int) {
		tp, err := telemetry.NewTracerProvider(ctx, telemetry.TracingConfig{Exporter: "console", Console: io.Discard, Sampler: sampler, SamplerArg: arg})
		if err != nil {
			t.Fatalf("NewTracerProvider(%s %s) = %v", sampler, arg, err)
		}
		defer func() { _ = tp.Shutdown(ctx) }()
		for range 1000 {
			_, span := tp.Tracer("test").Start(ctx, "op")
			if !span.SpanContext().HasTraceID() {
				t.Fatalf("%s: a span without a trace ID", sampler)
			}
			if span.SpanContext().IsSampled() {
				n++
			}
			span.End()
		}
		return n
	}
	if n := sampled("always_off", ""); n != 0 {
		t.Errorf("always_off sampled %d of 1000", n)
	}
	if n := sampled("", ""); n != 1000 {
		t.Errorf("the default sampled %d of 1000 root spans, want all", n)
	}
	if n := sampled("traceidratio", "0.3"); n < 200 || n > 400 {
		t.Errorf("traceidratio 0.3 sampled %d of 1000, want about 300", n)
	}
	if _, err := telemetry.NewTracerProvider(ctx, telemetry.TracingConfig{Exporter: "none", Sampler: "sometimes"}); err == nil {
		t.Error("NewTracerProvider accepts OTEL_TRACES_SAMPLER=sometimes")
	}
}

// A parent-based sampler follows the caller's decision.
func TestNewTracerProviderParentBased(t *testing.T) {
	ctx := context.Background()
	tp, err := telemetry.NewTracerProvider(ctx, telemetry.TracingConfig{Exporter: "console", Console: io.Discard, Sampler: "parentbased_always_on"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tp.Shutdown(ctx) }()
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, Remote: true, // flags 00: not sampled
	})
	_, span := tp.Tracer("test").Start(trace.ContextWithRemoteSpanContext(ctx, parent), "op")
	defer span.End()
	if span.SpanContext().IsSampled() || span.SpanContext().TraceID() != parent.TraceID() {
		t.Errorf("child of an unsampled remote parent: %v", span.SpanContext())
	}
}

// The resource names the service, its version and its environment;
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES are honoured.
func TestNewTracerProviderResource(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		serviceName, resourceAttrs string
		want                       map[string]string
	}{
		{"", "", map[string]string{"service.name": "fulfillment", "service.version": "1.2.3", "deployment.environment.name": "production"}},
		{"fulfillment-eu", "k8s.namespace.name=shop", map[string]string{"service.name": "fulfillment-eu", "k8s.namespace.name": "shop"}},
	} {
		t.Run(tt.serviceName, func(t *testing.T) {
			t.Setenv("OTEL_SERVICE_NAME", tt.serviceName) // the binary's config and the SDK read the same variable
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tt.resourceAttrs)
			tp, err := telemetry.NewTracerProvider(ctx, telemetry.TracingConfig{
				Exporter: "console", Console: io.Discard, ServiceName: tt.serviceName, ServiceVersion: "1.2.3", Environment: "production",
			})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tp.Shutdown(ctx) }()
			_, span := tp.Tracer("test").Start(ctx, "op")
			span.End()
			got := map[string]string{}
			for _, kv := range span.(sdktrace.ReadOnlySpan).Resource().Attributes() {
				got[string(kv.Key)] = kv.Value.String()
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("resource %s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}
