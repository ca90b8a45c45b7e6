package application

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
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

// Decorate gives a use case its span and its log line. It is the one
// wrapper every use case goes through.
func Decorate[In, Out any](name string, h Handler[In, Out], tracer trace.Tracer, log *slog.Logger) Handler[In, Out] {
	return HandlerFunc[In, Out](func(ctx context.Context, in In) (out Out, err error) {
		var attrs []attribute.KeyValue
		if a, ok := any(in).(Attributer); ok {
			attrs = a.SpanAttributes()
		}
		ctx, span := tracer.Start(ctx, name, trace.WithAttributes(attrs...))
		start := time.Now()
		defer func() {
			level := slog.LevelDebug
			if err != nil {
				span.RecordError(err)
				if isFault(err) {
					span.SetStatus(codes.Error, "use case failed")
					level = slog.LevelWarn
				}
			}
			log.Log(ctx, level, "use case", slog.String("use_case", name),
				slog.Duration("duration", time.Since(start)), slog.Any("error", errText(err)))
			span.End()
		}()
		return h.Handle(ctx, in)
	})
}

// isFault tells errors of the system from refusals of the domain: a refusal
// (not found, invalid input, invalid state) is a normal outcome, not an
// error of the span.
func isFault(err error) bool {
	var ve *domain.ValidationError
	var us *domain.UnknownSKUsError
	var ui *domain.UnknownItemsError
	var is *domain.InsufficientStockError
	var ms *domain.MissingSKUError
	switch {
	case errors.As(err, &ve), errors.As(err, &us), errors.As(err, &ui), errors.As(err, &is),
		errors.Is(err, domain.ErrInvalidWarehouse),
		errors.As(err, &ms), errors.Is(err, domain.ErrMissingShippingAddress), errors.Is(err, ports.ErrInvalidCredentials),
		errors.Is(err, domain.ErrNotFound), errors.Is(err, domain.ErrInvalidState),
		errors.Is(err, domain.ErrConflict), errors.Is(err, domain.ErrNoWarehouse):
		return false
	}
	return true
}

func errText(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}
