package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// ErrorWriter answers an error in a route's error shape: problem+json
// (ErrorMapper.Write) or the order intake's own (Storefront).
type ErrorWriter func(w http.ResponseWriter, r *http.Request, err error)

// Admission keeps every /v0 request within its deadline, whatever the
// database does (docs/decisions.md: request deadlines, load shedding).
//
//   - At most Capacity requests run at once. One more waits for a slot, in
//     order of arrival, for at most the wait budget — half the request
//     deadline (2 s of the default 4 s) — and is refused with 503 and
//     Retry-After (shed) only when no slot came free within it: a burst
//     that the service serves within the deadline is served, a load it
//     cannot serve in time is refused instead of queueing past it. Half
//     leaves the admitted request at least the other half for its work,
//     while a burst of one storefront (tens of deliveries of a millisecond
//     of database time each) waits milliseconds.
//   - A request's deadline counts from its arrival, its wait included:
//     its context ends a margin before the deadline, so that its handler
//     rolls back and answers for itself.
//   - If it has not answered when the deadline comes (a round trip that
//     ignores its context), http.TimeoutHandler answers for it and drops
//     whatever it writes later; that answer is the route's own 503.
//   - A client that goes away, also while waiting, is recorded as status
//     499.
//
// Health and metrics routes are not wrapped: they are never shed.
type Admission struct {
	timeout  time.Duration // the request deadline
	handler  time.Duration // the handler's own deadline, a margin before timeout
	wait     time.Duration // how long a request may wait for a slot
	capacity int64
	slots    *semaphore.Weighted // one unit per request in flight
	log      *slog.Logger
}

// NewAdmission builds the admission control of one server: requests are
// answered within timeout, capacity of them run at once, and the others
// wait for a slot for at most half of timeout.
func NewAdmission(timeout time.Duration, capacity int, log *slog.Logger) *Admission {
	// The handler's margin: a tenth of the deadline, 20 ms to 500 ms.
	margin := min(max(timeout/10, 20*time.Millisecond), 500*time.Millisecond)
	n := int64(max(capacity, 1))
	return &Admission{
		timeout: timeout, handler: max(timeout-margin, timeout/2), wait: timeout / 2,
		capacity: n, slots: semaphore.NewWeighted(n), log: log,
	}
}

// Guard wraps one route's handler; write answers the route's errors. A nil
// Admission returns the handler as it is (unit tests of one handler).
func (a *Admission) Guard(write ErrorWriter, next http.Handler) http.Handler {
	if a == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		if err := a.acquire(r.Context()); err != nil {
			if r.Context().Err() != nil {
				w.WriteHeader(StatusClientClosedRequest) // nobody reads the answer
				return
			}
			write(w, r, err)
			return
		}
		// The slot is held until the handler returns, also when the
		// deadline was answered for it: it may still hold a connection.
		handlerDeadline := arrived.Add(a.handler)
		run := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer a.slots.Release(1)
			defer a.logLatePanic(r)
			ctx, cancel := context.WithDeadline(r.Context(), handlerDeadline)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
			w.Header().Set(handledHeader, "1")
		})
		remaining := a.timeout - time.Since(arrived)
		http.TimeoutHandler(run, remaining, "").ServeHTTP(&deadlineWriter{ResponseWriter: w, r: r, write: write}, r)
	})
}

// acquire takes a slot, waiting for one at most the wait budget: an error
// wrapping application.ErrOverloaded when none came free in time (or ctx
// ended first).
func (a *Admission) acquire(ctx context.Context) error {
	if a.slots.TryAcquire(1) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	if err := a.slots.Acquire(ctx, 1); err != nil {
		return fmt.Errorf("no slot of %d came free within %s: %w", a.capacity, a.wait, application.ErrOverloaded)
	}
	return nil
}

// logLatePanic logs a panic of a handler whose request was answered for
// already: http.TimeoutHandler drops it, and nobody else would see it. A
// panic in time goes on to the recovery middleware.
func (a *Admission) logLatePanic(r *http.Request) {
	if r.Context().Err() == nil {
		return
	}
	if p := recover(); p != nil {
		a.log.ErrorContext(r.Context(), "panic serving request after its answer", slog.Any("panic", p),
			slog.String("method", r.Method), slog.String("path", r.URL.Path))
	}
}

// handledHeader marks the handler's own answer on its way out of
// http.TimeoutHandler, which copies the handler's headers only then: an
// answer without it is TimeoutHandler's own 503 (deadline passed, or client
// gone). The mark is removed before anything is sent.
const handledHeader = "X-Fulfillment-Handled"

// errNoAnswer is the error of a request whose handler did not answer within
// the deadline.
var errNoAnswer = fmt.Errorf("no answer within the request deadline: %w", domain.ErrTimeout)

// deadlineWriter is the ResponseWriter http.TimeoutHandler answers
// through. It passes the handler's answer on, and turns TimeoutHandler's
// own 503 into the route's answer: its error shape when the deadline has
// passed, 499 when the client went away.
type deadlineWriter struct {
	http.ResponseWriter
	r        *http.Request
	write    ErrorWriter
	replaced bool // TimeoutHandler's own answer was replaced: its body is dropped
}

func (d *deadlineWriter) WriteHeader(code int) {
	h := d.Header()
	if h.Get(handledHeader) != "" {
		h.Del(handledHeader)
		d.ResponseWriter.WriteHeader(code)
		return
	}
	d.replaced = true
	if d.r.Context().Err() != nil {
		d.ResponseWriter.WriteHeader(StatusClientClosedRequest)
		return
	}
	d.write(d.ResponseWriter, d.r, errNoAnswer)
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	if d.replaced {
		return len(b), nil
	}
	return d.ResponseWriter.Write(b)
}
