package ratelimit_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/ratelimit/redistest"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// What one check costs beside a bare round trip on the same client
// options (bench/ratelimit measures it behind HTTP): Allow in Redis, a
// PING, and Allow in memory, one after another.
func BenchmarkAllow(b *testing.B) {
	srv := redistest.Start(b)
	opt, err := ratelimit.ParseRedisURL(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	discard := slog.New(slog.DiscardHandler)
	red, closeStore := ratelimit.NewRedis(perHour(b, 1_000_000), opt, telemetry.NewMetrics().FairUse, discard)
	b.Cleanup(func() { _ = closeStore() })
	ctx := context.Background()
	b.Run("redis", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if d := red.Allow(ctx, ratelimit.ScopeOrg, "org_bench"); !d.Known || !d.Allowed {
				b.Fatalf("%+v", d)
			}
		}
	})
	b.Run("ping", func(b *testing.B) {
		client := redis.NewClient(opt)
		b.Cleanup(func() { _ = client.Close() })
		b.ReportAllocs()
		for b.Loop() {
			if err := client.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	mem := ratelimit.NewMemory(perHour(b, 1_000_000), telemetry.NewMetrics().FairUse, discard)
	b.Run("memory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if d := mem.Allow(ctx, ratelimit.ScopeOrg, "org_bench"); !d.Allowed {
				b.Fatalf("%+v", d)
			}
		}
	})
}
