package telemetry_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// The gauges read the counter at most once per refresh interval, expose
// every code, keep the last values when a read fails, and expose nothing
// before the first read succeeds.
func TestFailedOrdersCollector(t *testing.T) {
	var (
		calls atomic.Int32
		fail  atomic.Bool
	)
	fail.Store(true)
	c := telemetry.NewFailedOrdersCollector(func(ctx context.Context) (map[string]int, time.Duration, error) {
		calls.Add(1)
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the read has no deadline")
		}
		if fail.Load() {
			return nil, 0, errors.New("database away")
		}
		return map[string]int{"unknown_skus": 3}, 90 * time.Minute, nil
	}, []string{"unknown_skus", "no_warehouse"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)

	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Fatalf("before any read succeeded: %d series (%v), want none", n, err)
	}
	fail.Store(false)
	c.ExpireForTest()
	want := `
# HELP fulfillment_storefront_failed_order_oldest_age_seconds Seconds since the first delivery of the oldest failed order whose body is kept; 0 when there is none.
# TYPE fulfillment_storefront_failed_order_oldest_age_seconds gauge
fulfillment_storefront_failed_order_oldest_age_seconds 5400
# HELP fulfillment_storefront_failed_orders Failed storefront orders whose body is kept for a replay, by the code of their last error.
# TYPE fulfillment_storefront_failed_orders gauge
fulfillment_storefront_failed_orders{code="no_warehouse"} 0
fulfillment_storefront_failed_orders{code="unknown_skus"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	before := calls.Load()
	for range 5 {
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
	}
	if calls.Load() != before {
		t.Fatalf("%d reads within the refresh interval, want none", calls.Load()-before)
	}
	fail.Store(true)
	c.ExpireForTest()
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatalf("after a failed read, want the last values: %v", err)
	}
}
