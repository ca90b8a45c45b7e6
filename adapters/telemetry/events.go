package telemetry

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// EventMetrics are the relay's own metrics: events published by type,
// the time from a change's commit to the broker's acknowledgement of its
// event, and whether an existing stream lacks what the service needs.
type EventMetrics struct {
	Published           *prometheus.CounterVec
	Lag                 prometheus.Histogram
	StreamMisconfigured prometheus.Gauge
}

// NewEventMetrics registers the relay's metrics on m's registry, every
// type at 0.
func NewEventMetrics(m *Metrics) (*EventMetrics, error) {
	e := &EventMetrics{
		Published: newCounterVec("fulfillment_events_published_total",
			"Events the broker acknowledged, by CloudEvents type (an event published again after a relay died counts again).",
			"type"),
		Lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "fulfillment_events_publish_lag_seconds",
			Help:    "Time from the change that wrote an event to the broker's acknowledgement of it.",
			Buckets: []float64{.001, .0025, .005, .0075, .01, .015, .02, .03, .05, .075, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
		}),
		StreamMisconfigured: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "fulfillment_events_stream_misconfigured",
			Help: "1 when the events stream, found existing, does not cover the service's subjects or keeps duplicates for less than EVENTS_DUPLICATE_WINDOW; 0 otherwise.",
		}),
	}
	for _, t := range eventsports.EventTypes {
		e.Published.WithLabelValues(string(t))
	}
	for _, c := range []prometheus.Collector{e.Published, e.Lag, e.StreamMisconfigured} {
		if err := m.Registry.Register(c); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Observe counts an acknowledged event of type t, lag after its change.
func (e *EventMetrics) Observe(t eventsports.EventType, lag time.Duration) {
	e.Published.WithLabelValues(string(t)).Inc()
	e.Lag.Observe(max(lag, 0).Seconds())
}

// StreamChecked sets fulfillment_events_stream_misconfigured from what
// the stream lacks (broker.Stream.Problems).
func (e *EventMetrics) StreamChecked(problems []string) {
	if len(problems) > 0 {
		e.StreamMisconfigured.Set(1)
		return
	}
	e.StreamMisconfigured.Set(0)
}

// OutboxStats reads the outbox's gauges.
type OutboxStats func(ctx context.Context) (eventsports.OutboxStats, error)

// OutboxCollector exposes fulfillment_events_outbox_pending and
// fulfillment_events_outbox_oldest_age_seconds, read from the database when
// /metrics is scraped, at most once per refresh interval and within a
// short timeout; when a read fails the last values are exposed again
// (before the first success, none).
type OutboxCollector struct {
	*readAtScrape[eventsports.OutboxStats]
}

// NewOutboxCollector builds the collector.
func NewOutboxCollector(stats OutboxStats) *OutboxCollector {
	pending := prometheus.NewDesc("fulfillment_events_outbox_pending",
		"Events written by committed changes and not yet acknowledged by the broker.", nil, nil)
	oldest := prometheus.NewDesc("fulfillment_events_outbox_oldest_age_seconds",
		"Seconds the oldest event of the outbox has waited; 0 when none waits.", nil, nil)
	return &OutboxCollector{newReadAtScrape(stats, func(last eventsports.OutboxStats, ch chan<- prometheus.Metric) {
		ch <- prometheus.MustNewConstMetric(pending, prometheus.GaugeValue, float64(last.Pending))
		ch <- prometheus.MustNewConstMetric(oldest, prometheus.GaugeValue, last.OldestAge.Seconds())
	}, pending, oldest)}
}
