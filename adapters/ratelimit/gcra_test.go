package ratelimit_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/ratelimit/redistest"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
)

// setClock is a clock the test moves.
type setClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *setClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *setClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func limit(t *testing.T, rate string, burst int) domain.RateLimit {
	t.Helper()
	l, err := domain.ParseRateLimit(rate, burst)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A bucket that was full under the old limit has the whole new burst at
// once, raised or lowered (GCRA reads the change: the bucket keeps a time,
// not a count of tokens); a bucket in debt stays in debt by the same time.
func TestMemoryReadsAChangedLimitAsGCRA(t *testing.T) {
	clock := &setClock{now: time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)}
	l := ratelimit.NewMemory(limit(t, "1/h", 1), telemetry.NewMetrics().FairUse, slog.New(slog.DiscardHandler), ratelimit.WithClock(clock))
	const org = "org_a"
	set := func(rate string, burst int) { l.SetLimits(map[string]domain.RateLimit{org: limit(t, rate, burst)}) }

	set("5/s", 10)
	if got := allowed(l, ratelimit.ScopeOrg, org, 60); got != 10 {
		t.Fatalf("5/s burst 10 from a full bucket: %d of 60, want 10", got)
	}
	clock.advance(4 * time.Second) // full again (2 s refill the burst), across the year's end
	set("100/s", 200)
	if got := allowed(l, ratelimit.ScopeOrg, org, 260); got != 200 {
		t.Errorf("raised to 100/s burst 200 after the bucket refilled: %d of 260 at once, want the whole new burst 200", got)
	}
	d := l.Allow(context.Background(), ratelimit.ScopeOrg, org)
	if d.Allowed || d.RetryAfter != 10*time.Millisecond {
		t.Errorf("after the burst: %+v, want refused for one emission interval (10ms)", d)
	}

	clock.advance(2 * time.Second) // full again
	set("5/s", 10)
	if got := allowed(l, ratelimit.ScopeOrg, org, 60); got != 10 {
		t.Errorf("lowered to 5/s burst 10 from a full bucket: %d of 60 at once, want the new burst 10", got)
	}

	// In debt: 10 taken at 5/s leave the bucket full 2 s from now. Raised
	// to 100/s burst 200 (a burst of 2 s too), the next request is 10 ms
	// (one new interval) away; 2 s later the whole new burst is there.
	clock.advance(2 * time.Second)
	if got := allowed(l, ratelimit.ScopeOrg, org, 10); got != 10 {
		t.Fatalf("5/s burst 10 after 2 s: %d of 10", got)
	}
	set("100/s", 200)
	if d := l.Allow(context.Background(), ratelimit.ScopeOrg, org); d.Allowed || d.RetryAfter != 10*time.Millisecond {
		t.Errorf("raised while in debt: %+v, want refused for 10ms", d)
	}
	clock.advance(10 * time.Millisecond)
	if d := l.Allow(context.Background(), ratelimit.ScopeOrg, org); !d.Allowed || d.Remaining != 0 {
		t.Errorf("10ms later: %+v, want allowed with none left", d)
	}
	clock.advance(2 * time.Second)
	if got := allowed(l, ratelimit.ScopeOrg, org, 201); got != 200 {
		t.Errorf("2 s later at 100/s burst 200: %d of 201, want 200", got)
	}

	// Half used, then lowered: 100 of 200 taken at 100/s is 1 s of debt;
	// at 5/s burst 10 (2 s) the second left holds 5 requests.
	clock.advance(2 * time.Second)
	if got := allowed(l, ratelimit.ScopeOrg, org, 100); got != 100 {
		t.Fatalf("100 of burst 200: %d allowed", got)
	}
	set("5/s", 10)
	if got := allowed(l, ratelimit.ScopeOrg, org, 10); got != 5 {
		t.Errorf("lowered to 5/s burst 10 with 1 s of debt: %d of 10, want 5", got)
	}
}

// Redis reads the change the same way (redis_rate's GCRA): a bucket that
// refilled under 20/s burst 2 has the whole burst of 40 when raised.
func TestRedisReadsARaisedLimitAsGCRA(t *testing.T) {
	srv := redistest.Start(t)
	l := newRedis(t, srv.URL(), perHour(t, 1), telemetry.NewMetrics().FairUse, slog.New(slog.DiscardHandler))
	const org = "org_a"
	l.SetLimits(map[string]domain.RateLimit{org: limit(t, "20/s", 2)})
	if got := allowed(l, ratelimit.ScopeOrg, org, 3); got != 2 {
		t.Fatalf("20/s burst 2: %d of 3", got)
	}
	time.Sleep(200 * time.Millisecond) // 100 ms refill the burst
	l.SetLimits(map[string]domain.RateLimit{org: limit(t, "20/s", 40)})
	if got := allowed(l, ratelimit.ScopeOrg, org, 40); got != 40 {
		t.Errorf("raised to 20/s burst 40: %d of 40 at once, want all", got)
	}
}

// Many requests at once on one bucket take exactly its burst, in memory
// (the TAT is read and written under one lock), however they interleave
// with a limit raised meanwhile.
func TestMemoryBucketUnderConcurrentRequests(t *testing.T) {
	clock := &setClock{now: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)}
	l := ratelimit.NewMemory(limit(t, "1/h", 50), telemetry.NewMetrics().FairUse, slog.New(slog.DiscardHandler), ratelimit.WithClock(clock))
	var mu sync.Mutex
	got := 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			n := allowed(l, ratelimit.ScopeOrg, "org_a", 20)
			mu.Lock()
			got += n
			mu.Unlock()
		})
	}
	wg.Wait()
	if got != 50 {
		t.Errorf("16 × 20 requests at once on a burst of 50: %d allowed", got)
	}
}
