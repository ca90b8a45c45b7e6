package telemetry

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// TracingConfig selects the span exporter.
type TracingConfig struct {
	// Exporter is OTEL_TRACES_EXPORTER: "otlp" (the SDK default), "console"
	// or "none". With "none" spans are still made, so every response gets a
	// trace ID, but nothing is exported.
	Exporter string
	// Protocol is OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL; only http/protobuf
	// is built in.
	Protocol string
	// Console receives spans of the console exporter (stdout when nil).
	Console io.Writer
	// ServiceVersion goes on the resource.
	ServiceVersion string
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
	return nil
}

// NewTracerProvider builds the SDK tracer provider and installs the W3C
// trace context and baggage propagators. The OTLP exporter reads its
// endpoint, headers and timeouts from the OTEL_EXPORTER_OTLP_* variables.
func NewTracerProvider(ctx context.Context, c TracingConfig) (*sdktrace.TracerProvider, error) {
	if err := ValidateTracing(c); err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("fulfillment"), semconv.ServiceVersion(c.ServiceVersion)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	switch strings.ToLower(c.Exporter) {
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
