package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
)

// redisTimeout bounds one request's question to Redis: a Redis that does
// not answer in time costs a request this much, and the request is served.
const redisTimeout = 250 * time.Millisecond

// keyPrefix namespaces the service's buckets in a shared Redis (redis_rate
// adds "rate:" before it).
const keyPrefix = "fulfillment:"

// ParseRedisURL reads a redis:// or rediss:// URL. Its error never repeats
// the URL, which may hold a password.
func ParseRedisURL(raw string) (*redis.Options, error) {
	opt, err := redis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("not a redis://[user:password@]host:port[/db] URL")
	}
	// One try, short timeouts: a request waits for Redis at most
	// redisTimeout, and is served without a limit when it does not answer.
	opt.MaxRetries = -1
	opt.DialTimeout = redisTimeout
	opt.ReadTimeout = redisTimeout
	opt.WriteTimeout = redisTimeout
	return opt, nil
}

// NewRedis returns a limiter whose buckets live in Redis, shared by every
// replica: redis_rate's GCRA, one Lua script (one round trip) per request.
// Close closes the client.
func NewRedis(def domain.RateLimit, opt *redis.Options, m telemetry.FairUse, log *slog.Logger) (*Limiter, func() error) {
	client := redis.NewClient(opt)
	return newLimiter(def, redisStore{limiter: redis_rate.NewLimiter(client)}, m, log), client.Close
}

type redisStore struct {
	limiter *redis_rate.Limiter
}

func (s redisStore) allow(ctx context.Context, key string, limit domain.RateLimit) (bucketState, error) {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	res, err := s.limiter.Allow(ctx, keyPrefix+key, redis_rate.Limit{Rate: limit.Count(), Period: limit.Period(), Burst: limit.Burst()})
	if err != nil {
		return bucketState{}, fmt.Errorf("redis: %w", err)
	}
	st := bucketState{allowed: res.Allowed > 0, remaining: max(res.Remaining, 0)}
	if st.remaining == 0 {
		st.retryAfter = max(res.RetryAfter, 0)
		if st.allowed {
			// Allowed and empty: the next request may come after one
			// emission interval less what has passed; redis_rate tells
			// this as ResetAfter less the burst's other intervals.
			st.retryAfter = max(res.ResetAfter-time.Duration(limit.Burst()-1)*limit.Period()/time.Duration(limit.Count()), 0)
		}
	}
	return st, nil
}
