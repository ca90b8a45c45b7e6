package bootstrap

import (
	"context"
	"log/slog"
	"time"

	"github.com/uptrace/bun"
	"go.uber.org/fx"

	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/ports"
)

// newRateLimiter keeps the buckets of the rate limits in Redis when
// RATE_LIMIT_REDIS_URL is set (shared by every replica), else in this
// process (each replica allows the rate on its own).
func newRateLimiter(lc fx.Lifecycle, cfg Config, clock ports.Clock, m *telemetry.Metrics, log *slog.Logger) (*ratelimit.Limiter, error) {
	if cfg.RateLimitRedisURL == "" {
		log.Info("rate limits per replica, in memory (RATE_LIMIT_REDIS_URL is not set)", slog.String("limit", cfg.RateLimit.String()))
		return ratelimit.NewMemory(cfg.RateLimit, m.FairUse, log, ratelimit.WithClock(clock)), nil
	}
	opt, err := ratelimit.ParseRedisURL(cfg.RateLimitRedisURL)
	if err != nil {
		return nil, err
	}
	l, closeClient := ratelimit.NewRedis(cfg.RateLimit, opt, m.FairUse, log, ratelimit.WithClock(clock))
	lc.Append(fx.StopHook(closeClient))
	// The address only: the URL may hold a password.
	log.Info("rate limits shared through Redis", slog.String("redis", opt.Addr), slog.String("limit", cfg.RateLimit.String()))
	return l, nil
}

// FairUseModule keeps serve's rate limiter in step with the organizations'
// own limits.
var FairUseModule = fx.Module("fair-use",
	organizationLimitsModule,
	fx.Invoke(refreshOrganizationLimits),
)

// organizationLimitsModule provides the organizations' own limits, for
// serve and for `orgs limit`.
var organizationLimitsModule = fx.Provide(func(db *bun.DB) *pgaccess.OrganizationRateLimits {
	return pgaccess.NewOrganizationRateLimits(db)
})

// organizationLimitsEvery is how often serve reads the organizations' own
// limits: `orgs limit` applies within it on every replica. One indexed
// read of a few rows, twice a second per replica.
const organizationLimitsEvery = 500 * time.Millisecond

// refreshOrganizationLimits loads the organizations' own limits into the
// limiter at start (a database that does not answer then delays nothing:
// the default applies until it does) and then every organizationLimitsEvery,
// as a job (jobs.go).
// A failure keeps the limits already loaded; it is logged when it starts
// and when it ends, not at every attempt.
func refreshOrganizationLimits(lc fx.Lifecycle, store *pgaccess.OrganizationRateLimits, limiter *ratelimit.Limiter, log *slog.Logger) {
	failing := false
	load := func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		limits, err := store.RateLimits(ctx)
		switch {
		case err != nil && !failing:
			failing = true
			log.WarnContext(ctx, "organizations' own rate limits not loaded; the ones loaded before apply", slog.String("error", err.Error()))
		case err == nil:
			if failing {
				failing = false
				log.InfoContext(ctx, "organizations' own rate limits loaded again", slog.Int("organizations", len(limits)))
			}
			limiter.SetLimits(limits)
		}
	}
	lc.Append(fx.StartHook(load))
	startJob(lc, job{first: organizationLimitsEvery, run: func(ctx context.Context) time.Duration {
		load(ctx)
		return organizationLimitsEvery
	}})
}
