// Package telemetry sets up tracing (OpenTelemetry SDK from the standard
// OTEL_* variables), JSON logs that carry the trace and span IDs, and the
// Prometheus registry behind /metrics.
package telemetry
