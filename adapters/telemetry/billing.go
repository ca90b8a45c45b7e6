package telemetry

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// BillingFees and BillingStatuses are the label values of
// fulfillment_billing_charges_total{fee} and
// fulfillment_billing_invoices_total{status}, each series created at 0.
var (
	BillingFees = func() []string {
		out := make([]string, 0, len(billing.Fees)+3)
		for _, f := range billing.Fees {
			if f != billing.MinimumMonthly {
				out = append(out, string(f))
			}
		}
		return append(out, string(billing.FeeService), string(billing.FeeOperator), string(billing.FeeMinimum))
	}()
	BillingStatuses = labelValues(invoicing.VisibleInvoiceStatuses)
)

// ObserveCharges counts n charges accrued of a fee.
func (m *Metrics) ObserveCharges(fee string, n int) {
	if n > 0 {
		m.BillingCharges.WithLabelValues(fee).Add(float64(n))
	}
}

// ObserveInvoices counts n invoices moved to status (unpaid: finalized).
func (m *Metrics) ObserveInvoices(status string, n int) {
	if n > 0 {
		m.BillingInvoices.WithLabelValues(status).Add(float64(n))
	}
}

// OverduePeriodReader tells how long the oldest period past its grace has
// waited to be finalized.
type OverduePeriodReader func(ctx context.Context) (time.Duration, error)

// BillingOverdueCollector exposes fulfillment_billing_overdue_period_seconds,
// read from the database when /metrics is scraped, at most once per
// refresh interval and within a short timeout; a failed read exposes the
// last value again (none before the first success).
type BillingOverdueCollector struct{ *readAtScrape[time.Duration] }

// NewBillingOverdueCollector builds the collector.
func NewBillingOverdueCollector(read OverduePeriodReader) *BillingOverdueCollector {
	desc := prometheus.NewDesc("fulfillment_billing_overdue_period_seconds",
		"Seconds the oldest billing period past its grace has waited to be finalized; 0 when none waits.", nil, nil)
	return &BillingOverdueCollector{newReadAtScrape(read, func(age time.Duration, ch chan<- prometheus.Metric) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, age.Seconds())
	}, desc)}
}
