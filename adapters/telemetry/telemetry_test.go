package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// logLines decodes the JSON lines written to buf.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, l)
		}
		lines = append(lines, m)
	}
	return lines
}

func TestNewLoggerAddsTraceAndSpanIDs(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	defer span.End()
	sc := span.SpanContext()

	var buf bytes.Buffer
	log := telemetry.NewLogger(&buf, slog.LevelInfo)
	log.InfoContext(ctx, "inside")
	log.With("component", "x").InfoContext(ctx, "inside, derived logger")
	log.InfoContext(context.Background(), "outside")
	log.Info("no context")

	lines := logLines(t, &buf)
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 4: %s", len(lines), buf.String())
	}
	for _, l := range lines[:2] {
		if l["trace_id"] != sc.TraceID().String() || l["span_id"] != sc.SpanID().String() {
			t.Errorf("line %v: trace_id/span_id = %v/%v, want %s/%s", l["msg"], l["trace_id"], l["span_id"], sc.TraceID(), sc.SpanID())
		}
	}
	if lines[1]["component"] != "x" {
		t.Errorf("derived logger lost its attribute: %v", lines[1])
	}
	for _, l := range lines[2:] {
		if _, has := l["trace_id"]; has {
			t.Errorf("line %v outside a span has trace_id", l["msg"])
		}
		if _, has := l["span_id"]; has {
			t.Errorf("line %v outside a span has span_id", l["msg"])
		}
	}
}

func TestNewLoggerHonoursLevel(t *testing.T) {
	var buf bytes.Buffer
	log := telemetry.NewLogger(&buf, slog.LevelWarn)
	log.Info("dropped")
	log.Warn("kept")
	lines := logLines(t, &buf)
	if len(lines) != 1 || lines[0]["msg"] != "kept" {
		t.Errorf("lines = %v, want only the warning", lines)
	}
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"debug", slog.LevelDebug, false},
		{"info", slog.LevelInfo, false},
		{"", slog.LevelInfo, false},
		{"warn", slog.LevelWarn, false},
		{"error", slog.LevelError, false},
		{"DEBUG", slog.LevelDebug, false},
		{"Warn", slog.LevelWarn, false},
		{"warning", 0, true},
		{"trace", 0, true},
		{"fatal", 0, true},
		{" info", 0, true},
		{"-4", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := telemetry.ParseLevel(tt.in)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "LOG_LEVEL") {
					t.Errorf("ParseLevel(%q) = %v, %v; want an error naming LOG_LEVEL", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseLevel(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestValidateTracing(t *testing.T) {
	tests := []struct {
		exporter, protocol string
		wantErr            string // the variable the error names; "" for none
	}{
		{"", "", ""},
		{"otlp", "", ""},
		{"otlp", "http/protobuf", ""},
		{"console", "", ""},
		{"none", "", ""},
		{"console", "grpc", ""}, // the protocol matters to OTLP only
		{"none", "grpc", ""},
		{"otlp", "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"", "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"otlp", "http/json", "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"jaeger", "", "OTEL_TRACES_EXPORTER"},
		{"zipkin", "http/protobuf", "OTEL_TRACES_EXPORTER"},
		{"otlp,console", "", "OTEL_TRACES_EXPORTER"},
	}
	for _, tt := range tests {
		t.Run(tt.exporter+"/"+tt.protocol, func(t *testing.T) {
			err := telemetry.ValidateTracing(telemetry.TracingConfig{Exporter: tt.exporter, Protocol: tt.protocol})
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("ValidateTracing = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ValidateTracing = %v, want an error naming %s", err, tt.wantErr)
			}
		})
	}
}

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

// With OTEL_TRACES_EXPORTER=none nothing is recorded, whatever the sampler
// says, but spans still have trace IDs, so every response can carry one
// (api/openapi.yaml: X-Trace-Id on every answer).
func TestNewTracerProviderNoneMakesTraceIDs(t *testing.T) {
	ctx := context.Background()
	tp, err := telemetry.NewTracerProvider(ctx, telemetry.TracingConfig{Exporter: "none", ServiceVersion: "test", Sampler: "always_on"})
	if err != nil {
		t.Fatalf("NewTracerProvider(none) = %v", err)
	}
	defer func() { _ = tp.Shutdown(ctx) }()

	seen := map[string]bool{}
	for range 3 {
		_, span := tp.Tracer("test").Start(ctx, "op")
		if span.IsRecording() || span.SpanContext().IsSampled() {
			t.Fatalf("exporter none: a recording or sampled span %v", span.SpanContext())
		}
		sc := span.SpanContext()
		span.End()
		id := sc.TraceID().String()
		if !sc.IsValid() || !hex32.MatchString(id) || id == strings.Repeat("0", 32) {
			t.Fatalf("span context %v: want a valid trace ID of 32 hex digits", sc)
		}
		seen[id] = true
	}
	if len(seen) != 3 {
		t.Errorf("3 root spans got %d distinct trace IDs", len(seen))
	}
	if fields := otel.GetTextMapPropagator().Fields(); !slices.Contains(fields, "traceparent") {
		t.Errorf("global propagator fields = %v, want traceparent among them", fields)
	}
}

func TestNewTracerProviderConsoleExports(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	tp, err := telemetry.NewTracerProvider(ctx, telemetry.TracingConfig{Exporter: "console", Console: &out})
	if err != nil {
		t.Fatalf("NewTracerProvider(console) = %v", err)
	}
	_, span := tp.Tracer("test").Start(ctx, "exported-span-name")
	span.End()
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if !strings.Contains(out.String(), "exported-span-name") {
		t.Errorf("console output lacks the span: %.300s", out.String())
	}
}

func TestNewTracerProviderRefusesBadConfig(t *testing.T) {
	tp, err := telemetry.NewTracerProvider(context.Background(), telemetry.TracingConfig{Exporter: "otlp", Protocol: "grpc"})
	if err == nil || tp != nil {
		t.Errorf("NewTracerProvider(otlp, grpc) = %v, %v; want nil and an error", tp, err)
	}
}
