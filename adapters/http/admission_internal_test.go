package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
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

// A writer reused after an answer carries nothing of it into the next one:
// no header, status or body; and a writer abandoned at the deadline, which
// its handler may still write to, is never reused.
func TestAdmissionReusedWritersStartEmpty(t *testing.T) {
	a := NewAdmission(AdmissionConfig{Timeout: 200 * time.Millisecond, MaxInFlight: 2}, slog.New(slog.DiscardHandler))
	var (
		mu      sync.Mutex
		writers []*bufferedWriter
	)
	last := func() *bufferedWriter {
		mu.Lock()
		defer mu.Unlock()
		return writers[len(writers)-1]
	}
	late := make(chan struct{})
	h := a.Guard(func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusGatewayTimeout) },
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			writers = append(writers, w.(*bufferedWriter))
			mu.Unlock()
			switch r.URL.Path {
			case "/first":
				w.Header().Set("X-First", "1")
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte("first answer"))
			case "/stuck":
				<-late
				_, _ = w.Write([]byte("too late"))
			}
		}))
	serve := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}
	if w := serve("/first"); w.Code != http.StatusCreated || w.Body.String() != "first answer" || w.Header().Get("X-First") != "1" {
		t.Fatalf("first answer: %d %q %v", w.Code, w.Body.String(), w.Header())
	}
	for range 20 { // sync.Pool may drop a writer; one of these gets it back
		if w := serve("/second"); w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("X-First") != "" {
			t.Fatalf("second answer: %d %q %v", w.Code, w.Body.String(), w.Header())
		}
	}
	if w := serve("/stuck"); w.Code != http.StatusGatewayTimeout {
		t.Fatalf("stuck answer: %d", w.Code)
	}
	abandoned := last()
	for range 20 {
		if w := serve("/other"); w.Code != http.StatusOK {
			t.Fatalf("other answer: %d", w.Code)
		}
		if last() == abandoned {
			t.Fatal("the abandoned writer was reused while its handler still runs")
		}
	}
	close(late)
}
