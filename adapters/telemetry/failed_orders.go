package telemetry

import (
	"context"
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
type FailedOrdersCollector struct{ *readAtScrape[failedOrders] }

// failedOrders is what a FailedOrderCounter read.
type failedOrders struct {
	byCode map[string]int
	oldest time.Duration
}

// NewFailedOrdersCollector builds the collector; codes are the values of
// the code label, each exposed (0 when no order failed so).
func NewFailedOrdersCollector(count FailedOrderCounter, codes []string) *FailedOrdersCollector {
	byCode := prometheus.NewDesc("fulfillment_storefront_failed_orders",
		"Failed storefront orders whose body is kept for a replay, by the code of their last error.", []string{"code"}, nil)
	oldest := prometheus.NewDesc("fulfillment_storefront_failed_order_oldest_age_seconds",
		"Seconds since the first delivery of the oldest failed order whose body is kept; 0 when there is none.", nil, nil)
	return &FailedOrdersCollector{newReadAtScrape(func(ctx context.Context) (failedOrders, error) {
		byCode, oldest, err := count(ctx)
		return failedOrders{byCode, oldest}, err
	}, func(last failedOrders, ch chan<- prometheus.Metric) {
		for _, code := range codes {
			ch <- prometheus.MustNewConstMetric(byCode, prometheus.GaugeValue, float64(last.byCode[code]), code)
		}
		ch <- prometheus.MustNewConstMetric(oldest, prometheus.GaugeValue, last.oldest.Seconds())
	}, byCode, oldest)}
}
