package bootstrap

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"

	intakeapp "github.com/acme3pl/fulfillment/application/intake"
)

// FailedOrdersModule runs the retention of failed orders' bodies in the
// server: a purge soon after start and then periodically, on every replica
// (the purge is safe to run from several at once).
var FailedOrdersModule = fx.Module("failed-orders", fx.Invoke(startPurger))

// purgeInterval is the time between two purges: a twenty-fourth of the
// retention, so that a body outlives its retention by a small part of it,
// between a second and an hour.
func purgeInterval(retention time.Duration) time.Duration {
	return min(max(retention/24, time.Second), time.Hour)
}

// startPurger runs the purge as a job (jobs.go).
func startPurger(lc fx.Lifecycle, cfg Config, app *intakeapp.UseCases, tracer trace.Tracer, log *slog.Logger) {
	every := purgeInterval(cfg.FailedOrderRetention)
	startJob(lc, tickerJob("purge-failed-orders", min(every, time.Minute), every, tracer, log,
		func(ctx context.Context) (string, []slog.Attr, error) {
			n, err := app.PurgeFailedOrders.Handle(ctx, intakeapp.PurgeFailedOrders{})
			attrs := []slog.Attr{slog.Int("purged", n)}
			if err != nil {
				return "", attrs, err
			}
			if n == 0 {
				return "", nil, nil
			}
			return "purged failed orders' kept bodies past retention", append(attrs,
				slog.Duration("retention", cfg.FailedOrderRetention)), nil
		}))
}
