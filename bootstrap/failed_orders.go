package bootstrap

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/application"
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

// jitter spreads d by ±20 %, so that replicas started together do not
// purge together.
func jitter(d time.Duration) time.Duration {
	return d*8/10 + rand.N(d*4/10+1) //nolint:gosec // spreading timers needs no secure randomness
}

// startPurger starts the purging loop with the server and stops it, waiting
// for a purge in progress to end or roll back its batch, before the
// database closes.
func startPurger(lc fx.Lifecycle, cfg Config, app *application.Application, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	every := purgeInterval(cfg.FailedOrderRetention)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				timer := time.NewTimer(jitter(min(every, time.Minute)))
				defer timer.Stop()
				for {
					select {
					case <-ctx.Done():
						return
					case <-timer.C:
					}
					n, err := app.Commands.PurgeFailedOrders.Handle(ctx, application.PurgeFailedOrders{})
					switch {
					case err != nil && ctx.Err() == nil:
						log.WarnContext(ctx, "purge failed orders' kept bodies", slog.Int("purged", n), slog.String("error", err.Error()))
					case n > 0:
						log.InfoContext(ctx, "purged failed orders' kept bodies past retention", slog.Int("purged", n),
							slog.Duration("retention", cfg.FailedOrderRetention))
					}
					timer.Reset(jitter(every))
				}
			}()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
			case <-stop.Done():
			}
			return nil
		},
	})
}
