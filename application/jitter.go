package application

import (
	"math/rand/v2"
	"time"
)

// Jitter spreads d by ±20 %, so that replicas started together do not run
// their periodic work (the server's jobs, the relay's look at the outbox)
// together.
func Jitter(d time.Duration) time.Duration {
	return d*8/10 + rand.N(d*4/10+1) //nolint:gosec // spreading timers needs no secure randomness
}
