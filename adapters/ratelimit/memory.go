package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// NewMemory returns a limiter whose buckets live in this process: each
// replica allows the rate on its own (the default when no Redis is set).
//
// The buckets are GCRA's, as in Redis: what a bucket keeps is its
// theoretical arrival time (TAT), the time at which it will be full again,
// not a count of tokens. The limit is read at each request, so a changed
// limit reads the same TAT with its own emission interval and burst: a
// bucket that was full (TAT in the past) has the whole new burst at once,
// raised or lowered, and one that was in debt stays in debt by the same
// time. The arithmetic is the Redis script's (redis_rate's), line by
// line, so the two stores answer alike. It is written here rather than
// taken from a library because the in-memory ones at hand either are token
// buckets (golang.org/x/time/rate, used before: it kept its tokens when the
// size grew) or fix the limit per limiter object, where ours is read per
// request.
func NewMemory(def domain.RateLimit, m telemetry.FairUse, log *slog.Logger, opts ...Option) *Limiter {
	o := options(opts)
	return newLimiter(def, &memoryStore{tats: map[string]time.Time{}, clock: o.clock}, o.clock, m, log)
}

// maxIdleBuckets is how many buckets the memory store keeps before it
// forgets the full ones (a full bucket is the same as a new one).
const maxIdleBuckets = 10_000

type memoryStore struct {
	mu    sync.Mutex
	tats  map[string]time.Time // key → the bucket's theoretical arrival time
	clock ports.Clock
}

func (s *memoryStore) allow(_ context.Context, key string, limit domain.RateLimit) (bucketState, error) {
	now := s.clock.Now()
	// The emission interval (one request every interval on average) and
	// how far ahead of it the burst may run. Count, Period and Burst are
	// bounded (domain.MaxRateLimitCount, at most an hour): no overflow.
	interval := limit.Period() / time.Duration(limit.Count())
	burstOffset := limit.Period() * time.Duration(limit.Burst()) / time.Duration(limit.Count())
	s.mu.Lock()
	defer s.mu.Unlock()
	tat, ok := s.tats[key]
	if !ok || tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	diff := now.Sub(newTAT.Add(-burstOffset)) // how far now is past the time this request is allowed at
	if diff < 0 {
		return bucketState{retryAfter: -diff}, nil
	}
	if !ok && len(s.tats) >= maxIdleBuckets {
		s.forgetFull(now)
	}
	s.tats[key] = newTAT
	st := bucketState{allowed: true, remaining: int(diff / interval)}
	if st.remaining == 0 {
		st.retryAfter = interval - diff
	}
	return st, nil
}

// forgetFull drops the buckets that are full (TAT not after now) under any
// limit: asked again, they start full.
func (s *memoryStore) forgetFull(now time.Time) {
	for k, tat := range s.tats {
		if !tat.After(now) {
			delete(s.tats, k)
		}
	}
}
