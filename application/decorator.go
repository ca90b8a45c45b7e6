package application

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Handler is a use case: one input, one result.
type Handler[In, Out any] interface {
	Handle(ctx context.Context, in In) (Out, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc[In, Out any] func(ctx context.Context, in In) (Out, error)

// Handle calls f.
func (f HandlerFunc[In, Out]) Handle(ctx context.Context, in In) (Out, error) { return f(ctx, in) }

// Attributer is implemented by inputs that name what a dashboard follows
// (organization.id, storefront.order.id, ...); the decorator puts them on
// the use case's span.
type Attributer interface {
	SpanAttributes() []attribute.KeyValue
}

// Decorate gives a use case its span and its (debug) log line. It is the
// one wrapper every use case goes through. A fault marks the span as
// failed; it is logged once, by the adapter that answers it (with the
// request's trace ID), not here as well.
func Decorate[In, Out any](name string, h Handler[In, Out], tracer trace.Tracer, log *slog.Logger) Handler[In, Out] {
	return HandlerFunc[In, Out](func(ctx context.Context, in In) (out Out, err error) {
		var attrs []attribute.KeyValue
		if a, ok := any(in).(Attributer); ok {
			attrs = a.SpanAttributes()
		}
		ctx, span := tracer.Start(ctx, name, trace.WithAttributes(attrs...))
		start := time.Now()
		defer func() {
			if err != nil {
				span.RecordError(err)
				if KindOf(err).Fault() {
					span.SetStatus(codes.Error, "use case failed")
				}
			}
			log.Log(ctx, slog.LevelDebug, "use case", slog.String("use_case", name),
				slog.Duration("duration", time.Since(start)), slog.Any("error", errText(err)))
			span.End()
		}()
		return h.Handle(ctx, in)
	})
}

func errText(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}
