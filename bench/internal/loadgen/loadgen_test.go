package loadgen

import (
	"errors"
	"testing"
	"time"
)

func TestRecorderAndSummary(t *testing.T) {
	var r Recorder
	for _, ms := range []int{30, 10, 20, 40} {
		r.Record(time.Duration(ms)*time.Millisecond, nil)
	}
	r.Record(0, errors.New("first"))
	r.Record(0, errors.New("second"))
	sorted, failed, firstErr := r.Done()
	if len(sorted) != 4 || sorted[0] != 10*time.Millisecond || failed != 2 || firstErr != "first" {
		t.Fatalf("Done() = %v, %d, %q", sorted, failed, firstErr)
	}
	l := Summarize(sorted, 2*time.Second)
	if want := (Latencies{Throughput: 2, P50: 20, P99: 40, P999: 40, Max: 40}); l != want {
		t.Fatalf("Summarize = %+v, want %+v", l, want)
	}
	if l := Summarize(nil, time.Second); l != (Latencies{}) {
		t.Fatalf("Summarize of none = %+v", l)
	}
}

func TestScheduleStops(t *testing.T) {
	jobs := make(chan time.Time, 100)
	start := time.Now()
	Schedule(jobs, start, 1000, 5*time.Millisecond, nil)
	n := 0
	for due := range jobs {
		if due.Sub(start) >= 5*time.Millisecond {
			t.Fatalf("due %v after the end", due.Sub(start))
		}
		n++
	}
	if n != 5 {
		t.Fatalf("%d jobs, want 5", n)
	}
	jobs = make(chan time.Time, 100)
	Schedule(jobs, time.Now(), 1000, time.Second, func() bool { return true })
	if _, open := <-jobs; open {
		t.Fatal("a job after stop")
	}
}
