// Package loadgen holds what the load generators of the intake and ship
// benchmarks share: the answers of a run, their latency percentiles, and
// the schedule of an open loop.
package loadgen

import (
	"slices"
	"sync"
	"time"
)

// Recorder collects the answers of a run: the latency of each success, the
// failures, and the first failure's error. It is safe for concurrent use.
type Recorder struct {
	mu        sync.Mutex
	latencies []time.Duration
	failed    int
	firstErr  string
}

// Record records one answer: a success after lat, or the failure err.
func (r *Recorder) Record(lat time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.failed++
		if r.firstErr == "" {
			r.firstErr = err.Error()
		}
		return
	}
	r.latencies = append(r.latencies, lat)
}

// Done returns what was recorded: the successes' latencies, sorted, the
// failures and the first failure's error ("" without one).
func (r *Recorder) Done() (sorted []time.Duration, failed int, firstErr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	slices.Sort(r.latencies)
	return r.latencies, r.failed, r.firstErr
}

// Latencies sum up a run's successes: answers per second, and latency
// percentiles and maximum in milliseconds.
type Latencies struct {
	Throughput float64 `json:"throughput"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	P999       float64 `json:"p999_ms"`
	Max        float64 `json:"max_ms"`
}

// Summarize sums up the sorted latencies of the successes of a run that
// took elapsed.
func Summarize(sorted []time.Duration, elapsed time.Duration) Latencies {
	l := Latencies{Throughput: float64(len(sorted)) / elapsed.Seconds(),
		P50: pct(sorted, 0.50), P99: pct(sorted, 0.99), P999: pct(sorted, 0.999)}
	if len(sorted) > 0 {
		l.Max = ms(sorted[len(sorted)-1])
	}
	return l
}

// pct is the p-quantile of sorted in milliseconds (0 when empty).
func pct(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return ms(sorted[min(max(i, 0), len(sorted)-1)])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Schedule is an open loop's clock: it sends to jobs the due time of each
// request, rate per second from start, each when it is due, until d has
// passed since start or stop (nil: never) says so, then closes jobs.
func Schedule(jobs chan<- time.Time, start time.Time, rate float64, d time.Duration, stop func() bool) {
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * interval)
		if due.Sub(start) >= d || stop != nil && stop() {
			break
		}
		time.Sleep(time.Until(due))
		jobs <- due
	}
	close(jobs)
}
