package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// ErrorWriter answers an error in a route's error shape: problem+json
// (ErrorMapper.Write) or the order intake's own (intake.Storefront).
type ErrorWriter func(w http.ResponseWriter, r *http.Request, err error)

// Admission keeps every /v0 request within its deadline, whatever the
// database does (docs/decisions.md: request deadlines, load shedding).
//
//   - At most Capacity requests run at once. One more waits for a slot, in
//     order of arrival — how long depends on the queue's recent past, the
//     idea of CoDel (controlled delay) applied to a request queue:
//   - While the queue has been empty within the last interval (a good
//     queue), a request waits for at most the wait budget — half the
//     request deadline (2 s of the default 4 s) — and is refused with 503
//     and Retry-After (shed) only when no slot came free within it: a
//     burst that the service serves within the deadline is served.
//   - Once the queue has stayed non-empty for a whole interval (it
//     stands: the service does not drain it, sustained overload), a
//     request waits at most the target, and is refused then: refusals come
//     at once instead of after the wait budget, and the requests queued
//     already drain. When the load falls, the queue empties, and it is a
//     good queue again.
//   - A request's deadline counts from its arrival, its wait included:
//     its context ends a margin before the deadline, so that its handler
//     rolls back and answers for itself.
//   - If it has not answered when the deadline comes (a round trip that
//     ignores its context), http.TimeoutHandler answers for it and drops
//     whatever it writes later; that answer is the route's own 503.
//   - A client that goes away, also while waiting, is recorded as status
//     499.
//
// Every decision is counted (fulfillment_admission_decisions_total).
// Health and metrics routes are not wrapped: they are never shed.
type Admission struct {
	timeout   time.Duration // the request deadline
	handler   time.Duration // the handler's own deadline, a margin before timeout
	wait      time.Duration // how long a request may wait for a slot while the queue is good
	export    time.Duration // a download's deadline (GuardStream); 0: the handler's
	capacity  int64
	slots     *semaphore.Weighted // one unit per request in flight
	queue     *codel
	decisions *prometheus.CounterVec // by decision; nil: not counted
	log       *slog.Logger
}

// Default target and interval of the adaptive queue (ADMISSION_TARGET,
// ADMISSION_INTERVAL). A queue that has not been empty for a second is not
// a burst: a storefront's burst (tens of deliveries at once, each waiting
// for a database connection) is served within a second even on a small
// machine, and deliveries of a burst spread over its first second are all
// queued. Under sustained overload a request waits at most 100 ms, the top
// of CoDel's usual targets for requests (5 ms for packets), long enough
// for a slot that comes free soon.
const (
	DefaultAdmissionTarget   = 100 * time.Millisecond
	DefaultAdmissionInterval = time.Second
)

// The decisions of the admission, the values of the decision label.
const (
	AdmissionAdmitted   = "admitted"     // a slot was free
	AdmissionQueued     = "queued"       // admitted after waiting for a slot
	AdmissionShedAtOnce = "shed_at_once" // refused within the target: the queue stands (overload)
	AdmissionShedWaited = "shed_waited"  // refused when the wait budget ran out
)

// AdmissionOption sets an optional part of an Admission.
type AdmissionOption func(*Admission)

// WithAdaptiveQueue sets the target delay and the interval of the adaptive
// queue (defaults DefaultAdmissionTarget, DefaultAdmissionInterval).
func WithAdaptiveQueue(target, interval time.Duration) AdmissionOption {
	return func(a *Admission) { a.queue = newCodel(target, interval) }
}

// WithDecisionCounter counts every decision in c, by the label decision.
func WithDecisionCounter(c *prometheus.CounterVec) AdmissionOption {
	return func(a *Admission) { a.decisions = c }
}

// WithExportTimeout sets the deadline of a download (GuardStream,
// EXPORT_TIMEOUT) in place of the request deadline.
func WithExportTimeout(d time.Duration) AdmissionOption {
	return func(a *Admission) { a.export = d }
}

// NewAdmission builds the admission control of one server: requests are
// answered within timeout, capacity of them run at once, and the others
// wait for a slot for at most half of timeout while the queue is good, and
// not at all while it stands.
func NewAdmission(timeout time.Duration, capacity int, log *slog.Logger, opts ...AdmissionOption) *Admission {
	// The handler's margin: a tenth of the deadline, 20 ms to 500 ms.
	margin := min(max(timeout/10, 20*time.Millisecond), 500*time.Millisecond)
	n := int64(max(capacity, 1))
	a := &Admission{
		timeout: timeout, handler: max(timeout-margin, timeout/2), wait: timeout / 2,
		capacity: n, slots: semaphore.NewWeighted(n), log: log,
		queue: newCodel(DefaultAdmissionTarget, DefaultAdmissionInterval),
	}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Guard wraps one route's handler; write answers the route's errors. A nil
// Admission returns the handler as it is (unit tests of one handler).
func (a *Admission) Guard(write ErrorWriter, next http.Handler) http.Handler {
	return a.admitted(write, next, func(w http.ResponseWriter, r *http.Request, arrived time.Time) {
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

// GuardStream is Guard for a download, a route that writes its answer as
// it makes it (an invoice's charges as CSV): the same slot, but the
// download's own deadline (WithExportTimeout) for its handler's context,
// and no http.TimeoutHandler, which would hold the whole answer in memory
// until the handler returns. Such a handler answers for itself when its
// context ends, and cuts a stream short (http.ErrAbortHandler) rather than
// end it as if it were complete. The slot is held until the handler
// returns: a client that reads slowly or goes away holds that one slot,
// for no longer than the download's deadline.
func (a *Admission) GuardStream(write ErrorWriter, next http.Handler) http.Handler {
	return a.admitted(write, next, func(w http.ResponseWriter, r *http.Request, arrived time.Time) {
		defer a.slots.Release(1)
		deadline := a.handler
		if a.export > 0 {
			deadline = a.export
		}
		ctx, cancel := context.WithDeadline(r.Context(), arrived.Add(deadline))
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// admitted is Guard's and GuardStream's admission: a request takes a slot
// and is served, holding it (serve releases it; arrived is when the request
// came), or is answered here: shed, or its client gone while it waited. A
// nil Admission returns next as it is (unit tests of one handler).
func (a *Admission) admitted(write ErrorWriter, next http.Handler, serve func(w http.ResponseWriter, r *http.Request, arrived time.Time)) http.Handler {
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
		serve(w, r, arrived)
	})
}

// acquire takes a slot: at once when one is free; else, while the queue
// is good, waiting for one at most the wait budget; while it stands, at
// most the target. The error wraps application.ErrOverloaded when no slot
// was taken.
func (a *Admission) acquire(ctx context.Context) error {
	if a.slots.TryAcquire(1) {
		a.count(AdmissionAdmitted)
		return nil
	}
	wait := a.wait
	standing := a.queue.enter(time.Now())
	if standing {
		wait = min(a.queue.target, a.wait)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := a.slots.Acquire(ctx, 1)
	a.queue.leave(time.Now())
	switch {
	case err == nil:
		a.count(AdmissionQueued)
		return nil
	case standing:
		a.count(AdmissionShedAtOnce)
		return fmt.Errorf("all %d slots taken and the queue non-empty for over %s: %w", a.capacity, a.queue.interval,
			application.ErrOverloaded)
	default:
		a.count(AdmissionShedWaited)
		return fmt.Errorf("no slot of %d came free within %s: %w", a.capacity, a.wait, application.ErrOverloaded)
	}
}

func (a *Admission) count(decision string) {
	if a.decisions != nil {
		a.decisions.WithLabelValues(decision).Inc()
	}
}

// codel is the state of the adaptive queue, CoDel's idea as request
// queues use it (Facebook's "Fail at Scale", its folly library): a queue
// that has been empty within the last interval is a good one, which
// absorbs a burst; a queue that has stayed non-empty for a whole interval
// stands — the service does not drain it — and a request that joins it may
// wait only the target. Those short waits keep the queue non-empty while
// the overload lasts; when the load falls, it empties, and the next request
// may wait the whole budget again.
type codel struct {
	target, interval time.Duration

	mu      sync.Mutex
	waiting int       // requests waiting for a slot now
	emptyAt time.Time // when the queue was last empty
}

func newCodel(target, interval time.Duration) *codel {
	return &codel{target: target, interval: interval}
}

// enter counts a request that found no free slot as waiting, and tells
// whether the queue stands: then it may wait only the target.
func (c *codel) enter(now time.Time) (standing bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting == 0 {
		c.emptyAt = now
	}
	c.waiting++
	return now.Sub(c.emptyAt) > c.interval
}

// leave records a request that stopped waiting, with a slot or without.
func (c *codel) leave(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting--
	if c.waiting == 0 {
		c.emptyAt = now
	}
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
