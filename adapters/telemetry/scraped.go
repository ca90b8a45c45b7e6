package telemetry

import (
	"context"
	"sync"
	"time"
)

// scraped is a value that a collector reads from the database when
// /metrics is scraped: at most once per refresh interval (several
// scrapers, or a scrape storm, cost one query), within a short timeout (a
// database that does not answer cannot hold /metrics up). When a read
// fails the last value is kept; before the first success there is none.
type scraped[T any] struct {
	read             func(ctx context.Context) (T, error)
	refresh, timeout time.Duration

	mu   sync.Mutex
	at   time.Time // of the last read that succeeded
	last T
	ok   bool
}

// newScraped reads with read every 5 s at most, within 500 ms.
func newScraped[T any](read func(ctx context.Context) (T, error)) *scraped[T] {
	return &scraped[T]{read: read, refresh: 5 * time.Second, timeout: 500 * time.Millisecond}
}

// get is the value, read again when the last read is older than the
// refresh interval; ok is false before the first read that succeeded.
func (s *scraped[T]) get() (v T, ok bool) {
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
func (s *scraped[T]) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = time.Time{}
}
