package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application"
)

// A request whose turn cannot be expected within QueueWait is refused at
// once, without waiting in the queue: the estimate is the queue's length
// times the time a turn is held, over the slots.
func TestAdmissionShedsWhenTheExpectedWaitIsTooLong(t *testing.T) {
	a := NewAdmission(AdmissionConfig{Timeout: 10 * time.Second, MaxInFlight: 2, QueueWait: time.Second, MaxQueue: 100}, slog.New(slog.DiscardHandler))
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	var answered error
	h := a.Guard(func(_ http.ResponseWriter, _ *http.Request, err error) { answered = err }, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		started <- struct{}{}
		<-release
	}))
	for range 2 {
		go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		<-started
	}
	// Turns are held 3 s on average: one waiting request would wait 1.5 s.
	a.hold.Store(int64(3 * time.Second))
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if !errors.Is(answered, application.ErrOverloaded) || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("answered %v after %s, want ErrOverloaded at once", answered, time.Since(start))
	}
	if a.Queued() != 0 {
		t.Fatalf("%d requests queued, want none", a.Queued())
	}
	close(release)
}

// The moving average follows the time turns are held.
func TestAdmissionLearnsHowLongTurnsAreHeld(t *testing.T) {
	a := NewAdmission(AdmissionConfig{Timeout: time.Second, MaxInFlight: 1}, slog.New(slog.DiscardHandler))
	for range 100 {
		a.slots <- struct{}{}
		a.release(80 * time.Millisecond)
	}
	if got := time.Duration(a.hold.Load()); got < 79*time.Millisecond || got > 80*time.Millisecond {
		t.Fatalf("average %s after 100 turns of 80ms", got)
	}
}

// TestAdmissionReusesItsWorkers: the goroutine that ran a handler waits for
// the next one instead of ending, so that it keeps the stack it grew.
func TestAdmissionReusesItsWorkers(t *testing.T) {
	a := NewAdmission(AdmissionConfig{Timeout: time.Second, MaxInFlight: 1}, slog.New(slog.DiscardHandler))
	ran := make(chan struct{})
	a.run(func() { ran <- struct{}{} })
	<-ran
	for range 3 {
		select {
		case a.idle <- func() { ran <- struct{}{} }:
		case <-time.After(5 * time.Second):
			t.Fatal("no worker waits for a job after running one")
		}
		<-ran
	}
}
