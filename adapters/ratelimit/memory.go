package ratelimit

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
)

// NewMemory returns a limiter whose buckets live in this process: each
// replica allows the rate on its own (the default when no Redis is set).
//
// The buckets are golang.org/x/time/rate's token buckets. A token bucket
// of rate r and size b allows exactly what GCRA with emission interval 1/r
// and a burst of b allows (the two are the same algorithm seen from either
// end): b requests at once from a full bucket, then one every 1/r. So the
// answers, Remaining and RetryAfter included, are those of the Redis
// buckets.
func NewMemory(def domain.RateLimit, m telemetry.FairUse, log *slog.Logger) *Limiter {
	return newLimiter(def, &memoryStore{buckets: map[string]*rate.Limiter{}, now: time.Now}, m, log)
}

// maxIdleBuckets is how many buckets the memory store keeps before it
// forgets the full ones (a full bucket is the same as a new one).
const maxIdleBuckets = 10_000

type memoryStore struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	now     func() time.Time
}

func perSecond(l domain.RateLimit) rate.Limit {
	return rate.Limit(float64(l.Count()) / l.Period().Seconds())
}

func (s *memoryStore) allow(_ context.Context, key string, limit domain.RateLimit) (bucketState, error) {
	now := s.now()
	r := perSecond(limit)
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.buckets[key]
	if !ok {
		if len(s.buckets) >= maxIdleBuckets {
			s.forgetFull(now)
		}
		b = rate.NewLimiter(r, limit.Burst())
		s.buckets[key] = b
	} else if b.Limit() != r || b.Burst() != limit.Burst() {
		// The organization's limit changed: the bucket keeps what it
		// holds, under the new rate and size.
		b.SetLimitAt(now, r)
		b.SetBurstAt(now, limit.Burst())
	}
	allowed := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	st := bucketState{allowed: allowed, remaining: max(int(math.Floor(tokens)), 0)}
	if st.remaining == 0 {
		st.retryAfter = time.Duration((1 - tokens) / float64(r) * float64(time.Second))
	}
	return st, nil
}

// forgetFull drops the buckets that are full: asked again, they start full.
func (s *memoryStore) forgetFull(now time.Time) {
	for k, b := range s.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(s.buckets, k)
		}
	}
}
