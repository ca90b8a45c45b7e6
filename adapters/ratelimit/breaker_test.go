package ratelimit_test

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/ratelimit/redistest"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// With Redis known to be down, many requests at once are all answered
// without asking it: no connection is dialled but the probe's (one a
// second), where each request dialled before; Redis back, they are limited
// again.
func TestRedisDownUnderConcurrentRequests(t *testing.T) {
	srv := redistest.Start(t)
	opt, err := ratelimit.ParseRedisURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var dials atomic.Int64
	var d net.Dialer
	opt.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	l, closeStore := ratelimit.NewRedis(perHour(t, 1_000_000), opt, telemetry.NewMetrics().FairUse, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { _ = closeStore() })
	if !l.Allow(context.Background(), ratelimit.ScopeOrg, "org_a").Known {
		t.Fatal("Redis up: the bucket is not known")
	}
	srv.Stop()
	if d := l.Allow(context.Background(), ratelimit.ScopeOrg, "org_a"); d.Known {
		t.Fatalf("Redis stopped: %+v", d)
	}
	before, start := dials.Load(), time.Now()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 50 {
				if d := l.Allow(context.Background(), ratelimit.ScopeOrg, "org_a"); !d.Allowed || d.Known {
					t.Errorf("with Redis known to be down: %+v", d)
					return
				}
			}
		})
	}
	wg.Wait()
	probes := int64(time.Since(start)/time.Second) + 1
	if n := dials.Load() - before; n > probes {
		t.Errorf("16 × 50 requests with Redis known to be down dialled it %d times in %s, want the probe's at most (%d)", n, time.Since(start), probes)
	}
	srv.Start()
	waitKnown(t, l)
}
