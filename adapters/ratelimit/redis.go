package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
)

// redisTimeout bounds one request's question to Redis: a Redis that does
// not answer in time costs a request this much once, and the request is
// served; after that Redis is known to be down (probeEvery).
const redisTimeout = 250 * time.Millisecond

// probeEvery is how often a Redis known to be down is asked again (a PING
// in the background; no request waits for it). Limits apply again within
// it once Redis answers.
const probeEvery = time.Second

// keyPrefix namespaces the service's buckets in a shared Redis (redis_rate
// adds "rate:" before it).
const keyPrefix = "fulfillment:"

// errRedisDown is the answer while Redis is known to be down.
var errRedisDown = errors.New("redis: down at the last question, asked again in the background every second")

// ParseRedisURL reads a redis:// or rediss:// URL. Its error never repeats
// the URL, which may hold a password.
func ParseRedisURL(raw string) (*redis.Options, error) {
	opt, err := redis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("not a redis://[user:password@]host:port[/db] URL")
	}
	// One try, short timeouts: a request waits for Redis at most
	// redisTimeout, and is served without a limit when it does not answer.
	// One dial per try too (go-redis dials up to five times, 100 ms apart,
	// by default).
	opt.MaxRetries = -1
	opt.DialerRetries = 1
	opt.DialTimeout = redisTimeout
	opt.ReadTimeout = redisTimeout
	opt.WriteTimeout = redisTimeout
	return opt, nil
}

// NewRedis returns a limiter whose buckets live in Redis, shared by every
// replica: redis_rate's GCRA, one Lua script (one round trip) per request.
// A Redis that fails is not asked again by requests (they are served at
// once, fail open) until a PING in the background answers. The client's
// own log lines go to log (RouteClientLogs). Close stops the probe and
// closes the client.
func NewRedis(def domain.RateLimit, opt *redis.Options, m telemetry.FairUse, log *slog.Logger, opts ...Option) (l *Limiter, closeStore func() error) {
	RouteClientLogs(log)
	client := redis.NewClient(opt)
	s := &redisStore{client: client, limiter: redis_rate.NewLimiter(client), stop: make(chan struct{}), log: log}
	return newLimiter(def, s, options(opts).clock, m, log), s.close
}

type redisStore struct {
	client  *redis.Client
	limiter *redis_rate.Limiter
	log     *slog.Logger

	down    atomic.Bool // Redis failed; a probe runs until it answers
	stop    chan struct{}
	probing sync.WaitGroup
	closed  sync.Once
}

func (s *redisStore) allow(ctx context.Context, key string, limit domain.RateLimit) (bucketState, error) {
	if s.down.Load() {
		return bucketState{}, errRedisDown
	}
	qctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	res, err := s.limiter.Allow(qctx, keyPrefix+key, redis_rate.Limit{Rate: limit.Count(), Period: limit.Period(), Burst: limit.Burst()})
	if err != nil {
		if ctx.Err() == nil { // not the caller's own end (a client that hung up)
			s.markDown()
		}
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

// markDown stops requests asking Redis and starts the probe that asks it
// again, once, every probeEvery, until it answers.
func (s *redisStore) markDown() {
	if !s.down.CompareAndSwap(false, true) {
		return
	}
	s.probing.Go(func() {
		t := time.NewTicker(probeEvery)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
			err := s.client.Ping(ctx).Err()
			cancel()
			if err == nil {
				s.log.Info("rate limits applied again: Redis answers")
				s.down.Store(false)
				return
			}
		}
	})
}

func (s *redisStore) close() error {
	s.closed.Do(func() { close(s.stop) })
	s.probing.Wait()
	return s.client.Close()
}

// clientLogger writes go-redis's own log lines (a failed dial, a pool's
// trouble) as the service's JSON lines at debug level: every failure that
// matters to a request is told by the limiter's warning (once a minute)
// and counted, so the client's lines, one per failed dial, are details.
type clientLogger struct{ log *slog.Logger }

func (c clientLogger) Printf(ctx context.Context, format string, v ...any) {
	c.log.DebugContext(ctx, "redis client", slog.String("message", fmt.Sprintf(format, v...)))
}

// RouteClientLogs sends the log lines of every go-redis client of the
// process (its logger is global) to log instead of plain text on stderr.
func RouteClientLogs(log *slog.Logger) {
	redis.SetLogger(clientLogger{log: log})
}
