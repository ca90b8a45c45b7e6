package httpapi

import (
	"testing"
	"time"
)

// The adaptive queue's verdicts, on a clock of the test's own: a queue
// stands once it has stayed non-empty for a whole interval, and is good
// again as soon as it has been empty.
func TestCodelVerdicts(t *testing.T) {
	const target, interval = 100 * time.Millisecond, time.Second
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	t.Run("a burst arriving within an interval is queued whole", func(t *testing.T) {
		c := newCodel(target, interval)
		for i := range 40 { // arrivals spread over 800 ms, none served yet
			if c.enter(at(20 * i)) {
				t.Fatalf("request %d of the burst (at %d ms) was told the queue stands", i, 20*i)
			}
		}
	})

	t.Run("a queue non-empty for a whole interval stands", func(t *testing.T) {
		c := newCodel(target, interval)
		c.enter(at(0))
		c.enter(at(0))
		for i := range 20 { // one leaves and one joins every 60 ms: never empty
			c.leave(at(60*i + 30))
			if standing := c.enter(at(60*i + 60)); standing != (60*i+60 > 1000) {
				t.Fatalf("at %d ms the queue stands: %v", 60*i+60, standing)
			}
		}
	})

	t.Run("a queue that emptied is good again", func(t *testing.T) {
		c := newCodel(target, interval)
		c.enter(at(0))
		c.enter(at(500))
		if !c.enter(at(1200)) {
			t.Fatal("the queue non-empty for 1.2 s does not stand")
		}
		c.leave(at(1300))
		c.leave(at(1300))
		c.leave(at(1301)) // empty
		if c.enter(at(1302)) {
			t.Error("a request joining an empty queue was told it stands")
		}
		if c.enter(at(1400)) {
			t.Error("the queue empty 100 ms ago was told it stands")
		}
	})
}
