package telemetry

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// readAtScrape is a prometheus.Collector of a value that it reads from the
// database when /metrics is scraped: at most once per refresh interval
// (several scrapers, or a scrape storm, cost one query), within a short
// timeout (a database that does not answer cannot hold /metrics up). When
// a read fails the last value is kept and exposed again; before the first
// success there is none. It describes descs, and collects what collect
// makes of the value.
type readAtScrape[T any] struct {
	read             func(ctx context.Context) (T, error)
	collect          func(v T, ch chan<- prometheus.Metric)
	descs            []*prometheus.Desc
	refresh, timeout time.Duration

	mu   sync.Mutex
	at   time.Time // of the last read that succeeded
	last T
	ok   bool
}

// newReadAtScrape reads with read every 5 s at most, within 500 ms.
func newReadAtScrape[T any](read func(ctx context.Context) (T, error), collect func(v T, ch chan<- prometheus.Metric),
	descs ...*prometheus.Desc,
) *readAtScrape[T] {
	return &readAtScrape[T]{read: read, collect: collect, descs: descs, refresh: 5 * time.Second, timeout: 500 * time.Millisecond}
}

// Describe implements prometheus.Collector.
func (s *readAtScrape[T]) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range s.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *readAtScrape[T]) Collect(ch chan<- prometheus.Metric) {
	if v, ok := s.get(); ok {
		s.collect(v, ch)
	}
}

// get is the value, read again when the last read is older than the
// refresh interval; ok is false before the first read that succeeded.
func (s *readAtScrape[T]) get() (v T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.at) >= s.refresh {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		v, err := s.read(ctx)
		cancel()
		if err == nil {
			s.at, s.last, s.ok = time.Now(), v, true
		}
	}
	return s.last, s.ok
}

// expire makes the next get read again.
func (s *readAtScrape[T]) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = time.Time{}
}
