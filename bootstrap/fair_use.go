package bootstrap

import (
	"log/slog"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// newRateLimiter keeps the buckets of the rate limits in Redis when
// RATE_LIMIT_REDIS_URL is set (shared by every replica), else in this
// process (each replica allows the rate on its own).
func newRateLimiter(lc fx.Lifecycle, cfg Config, m *telemetry.Metrics, log *slog.Logger) (*ratelimit.Limiter, error) {
	if cfg.RateLimitRedisURL == "" {
		log.Info("rate limits per replica, in memory (RATE_LIMIT_REDIS_URL is not set)", slog.String("limit", cfg.RateLimit.String()))
		return ratelimit.NewMemory(cfg.RateLimit, m.FairUse, log), nil
	}
	opt, err := ratelimit.ParseRedisURL(cfg.RateLimitRedisURL)
	if err != nil {
		return nil, err
	}
	l, closeClient := ratelimit.NewRedis(cfg.RateLimit, opt, m.FairUse, log)
	lc.Append(fx.StopHook(closeClient))
	// The address only: the URL may hold a password.
	log.Info("rate limits shared through Redis", slog.String("redis", opt.Addr), slog.String("limit", cfg.RateLimit.String()))
	return l, nil
}
