package bootstrap

import (
	"context"
	"testing"
	"time"
)

// A job runs after its first wait; a wake-up ends a wait only when the
// run before it let it (the relay's poll), not otherwise (its back-off),
// and the run knows a wake-up started it.
func TestJobWakeUps(t *testing.T) {
	wake := make(RelayWake, 1)
	runs := make(chan bool)
	wakeable := []bool{true, false}
	j := job{wake: wake, run: func(ctx context.Context, woken bool) (time.Duration, bool) {
		select {
		case runs <- woken:
		case <-ctx.Done():
		}
		w := len(wakeable) > 0 && wakeable[0]
		if len(wakeable) > 0 {
			wakeable = wakeable[1:]
		}
		return time.Hour, w
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); runLoop(ctx, j) }()
	defer func() { cancel(); <-done }()

	if woken := <-runs; woken {
		t.Fatal("the first run says a wake-up started it")
	}
	wake.Wake()
	select {
	case woken := <-runs:
		if !woken {
			t.Fatal("a run started by a wake-up does not say so")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a wake-up did not end a wait its run let it end")
	}
	wake.Wake()
	select {
	case <-runs:
		t.Fatal("a wake-up ended a wait its run did not let it end")
	case <-time.After(100 * time.Millisecond):
	}
}
