package telemetry

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// FailedOrderCounter counts the failed orders that keep their body: by
// error code, and the age of the oldest.
type FailedOrderCounter func(ctx context.Context) (byCode map[string]int, oldest time.Duration, err error)

// FailedOrdersCollector exposes fulfillment_storefront_failed_orders{code}
// and fulfillment_storefront_failed_order_oldest_age_seconds, read from the
// database when /metrics is scraped: at most once per refresh interval
// (several scrapers, or a scrape storm, cost one query), within a short
// timeout (a database that does not answer cannot hold /metrics up). When
// the read fails the last values are exposed again; before the first
// success, none.
type FailedOrdersCollector struct {
	count   FailedOrderCounter
	codes   []string
	refresh time.Duration
	timeout time.Duration

	byCode, oldest *prometheus.Desc

	mu     sync.Mutex
	at     time.Time // of the last read that succeeded
	counts map[string]int
	age    time.Duration
}

// NewFailedOrdersCollector builds the collector; codes are the values of
// the code label, each exposed (0 when no order failed so).
func NewFailedOrdersCollector(count FailedOrderCounter, codes []string) *FailedOrdersCollector {
	return &FailedOrdersCollector{
		count: count, codes: codes, refresh: 5 * time.Second, timeout: 500 * time.Millisecond,
		byCode: prometheus.NewDesc("fulfillment_storefront_failed_orders",
			"Failed storefront orders whose body is kept for a replay, by the code of their last error.", []string{"code"}, nil),
		oldest: prometheus.NewDesc("fulfillment_storefront_failed_order_oldest_age_seconds",
			"Seconds since the first delivery of the oldest failed order whose body is kept; 0 when there is none.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *FailedOrdersCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.byCode
	ch <- c.oldest
}

// Collect implements prometheus.Collector.
func (c *FailedOrdersCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) >= c.refresh {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		counts, age, err := c.count(ctx)
		cancel()
		if err == nil {
			c.at, c.counts, c.age = time.Now(), counts, age
		}
	}
	if c.counts == nil {
		return
	}
	for _, code := range c.codes {
		ch <- prometheus.MustNewConstMetric(c.byCode, prometheus.GaugeValue, float64(c.counts[code]), code)
	}
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, c.age.Seconds())
}
