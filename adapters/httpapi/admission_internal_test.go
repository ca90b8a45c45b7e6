package httpapi

import (
	"testing"
	"time"
)

// The adaptive queue's verdicts, on a clock of the test's own: a queue
// stands once the shortest wait of an interval was above the target, or
// requests waited through an interval without one getting a slot; it is
// good again after an interval in which a request got its slot within the
// target.
func TestCodelVerdicts(t *testing.T) {
	const target, interval = 5 * time.Millisecond, 100 * time.Millisecond
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	t.Run("a burst served within an interval is a good queue", func(t *testing.T) {
		c := newCodel(target, interval)
		c.served(at(0)) // the slots are taken at once...
		for range 40 {  // ...and 40 more requests wait
			if !c.enter(at(1)) {
				t.Fatal("a request of the burst was refused")
			}
		}
		for i := range 40 {
			c.leave(at(2+i), time.Duration(1+i)*time.Millisecond)
		}
		if !c.enter(at(150)) {
			t.Error("after a burst that started with a free slot, a request was refused")
		}
	})

	t.Run("every wait of an interval above the target: the queue stands", func(t *testing.T) {
		c := newCodel(target, interval)
		c.served(at(0)) // an interval [0, 100) begins
		c.enter(at(10))
		c.enter(at(11))
		c.leave(at(120), 110*time.Millisecond) // [0, 100) judged good (a wait of 0); [120, 220) begins
		c.leave(at(150), 139*time.Millisecond)
		if c.enter(at(230)) { // [120, 220) judged: its shortest wait 110 ms
			t.Fatal("a request was queued after an interval whose every wait was above the target")
		}
		c.served(at(250)) // a slot found free within [230, 330)
		if !c.enter(at(340)) {
			t.Error("a request was refused after an interval in which one got a slot at once")
		}
	})

	t.Run("requests waiting through an interval with no slot freed: the queue stands", func(t *testing.T) {
		c := newCodel(target, interval)
		c.served(at(0))
		if !c.enter(at(1)) {
			t.Fatal("the first request to wait was refused")
		}
		if c.enter(at(350)) {
			t.Error("a request was queued while another had waited 349 ms without a slot")
		}
	})

	t.Run("a queue empty for an interval is good", func(t *testing.T) {
		c := newCodel(target, interval)
		c.served(at(0))
		c.enter(at(10))
		c.leave(at(120), 110*time.Millisecond) // [120, 220): a long wait, then nobody waits
		if !c.enter(at(500)) {
			t.Error("a request was refused after the queue had been empty for a whole interval")
		}
	})
}
