package telemetry

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// TracingConfig selects the span exporter.
type TracingConfig struct {
	// Exporter is OTEL_TRACES_EXPORTER: "otlp" (the SDK default), "console"
	// or "none". With "none" no span is recorded, whatever the sampler: each
	// request still gets a trace ID (logs and X-Trace-Id carry it), but
	// attributes, events and timings that nobody would receive cost
	// nothing, and no exemplar points at a trace that does not exist.
	Exporter string
	// Protocol is OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL; only http/protobuf
	// is built in.
	Protocol string
	// Console receives spans of the console exporter (stdout when nil).
	Console io.Writer
	// Sampler and SamplerArg are OTEL_TRACES_SAMPLER and its argument
	// (see ParseSampler); "" is parentbased_always_on.
	Sampler, SamplerArg string
	// ServiceName (OTEL_SERVICE_NAME; "fulfillment" when empty),
	// ServiceVersion and Environment (deployment.environment.name) go on
	// the resource; OTEL_RESOURCE_ATTRIBUTES may add to them.
	ServiceName, ServiceVersion, Environment string
}

// ValidateTracing checks the exporter settings without building anything.
func ValidateTracing(c TracingConfig) error {
	switch c.Exporter {
	case "", "otlp", "console", "none":
	default:
		return fmt.Errorf("OTEL_TRACES_EXPORTER: %q is not one of otlp, console, none", c.Exporter)
	}
	if c.Exporter == "" || c.Exporter == "otlp" {
		switch c.Protocol {
		case "", "http/protobuf":
		default:
			return fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not supported (use http/protobuf)", c.Protocol)
		}
	}
	_, err := ParseSampler(c.Sampler, c.SamplerArg)
	return err
}

// ParseSampler reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the
// OpenTelemetry specification defines them: always_on, always_off,
// traceidratio, parentbased_always_on (the default), parentbased_always_off
// and parentbased_traceidratio, whose argument is a ratio from 0 to 1
// (default 1). The SDK reads the same variables by itself, but falls back to
// its default on a bad value with no more than a warning; here a bad value
// is an error, so that start-up stops instead of sampling what nobody asked.
func ParseSampler(name, arg string) (sdktrace.Sampler, error) {
	ratio := func() (sdktrace.Sampler, error) {
		arg = strings.TrimSpace(arg)
		if arg == "" {
			return sdktrace.TraceIDRatioBased(1), nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG: %q is not a ratio from 0 to 1", arg)
		}
		return sdktrace.TraceIDRatioBased(r), nil
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio":
		return ratio()
	case "parentbased_traceidratio":
		s, err := ratio()
		if err != nil {
			return nil, err
		}
		return sdktrace.ParentBased(s), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER: %q is not one of always_on, always_off, traceidratio, "+
		"parentbased_always_on, parentbased_always_off, parentbased_traceidratio", name)
}

// NewTracerProvider builds the SDK tracer provider and installs the W3C
// trace context and baggage propagators. The OTLP exporter reads its
// endpoint, headers and timeouts from the OTEL_EXPORTER_OTLP_* variables.
func NewTracerProvider(ctx context.Context, c TracingConfig) (*sdktrace.TracerProvider, error) {
	if err := ValidateTracing(c); err != nil {
		return nil, err
	}
	sampler, err := ParseSampler(c.Sampler, c.SamplerArg)
	if err != nil {
		return nil, err
	}
	name := c.ServiceName
	if name == "" {
		name = "fulfillment"
	}
	attrs := []attribute.KeyValue{semconv.ServiceName(name), semconv.ServiceVersion(c.ServiceVersion)}
	if c.Environment != "" {
		attrs = append(attrs, semconv.DeploymentEnvironmentNameKey.String(c.Environment))
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attrs...),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES adds to these, OTEL_SERVICE_NAME wins
	)
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	exporter := strings.ToLower(c.Exporter)
	if exporter == "none" {
		sampler = sdktrace.NeverSample() // trace IDs still made; nothing recorded for nobody
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sampler)}
	switch exporter {
	case "none":
	case "console":
		w := c.Console
		if w == nil {
			w = os.Stdout
		}
		exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
		if err != nil {
			return nil, fmt.Errorf("console span exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	default:
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("otlp span exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp, nil
}
