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
// (ErrorMapper.Write) or the order intake's own (Storefront).
type ErrorWriter func(w http.ResponseWriter, r *http.Request, err error)

// Admission keeps every /v0 request within its deadline, whatever the
// database does (docs/decisions.md: request deadlines, load shedding).
//
//   - At most Capacity requests run at once. One more waits for a slot, in
//     order of arrival — but how long depends on the queue's recent past,
//     the idea of CoDel (controlled delay) applied to a request queue:
//   - While the queue is a good one (in each interval some request got its
//     slot within the target delay: the queue has recently been empty), a
//     request waits for at most the wait budget — half the request
//     deadline (2 s of the default 4 s) — and is refused with 503 and
//     Retry-After (shed) only when no slot came free within it: a burst
//     that the service serves within the deadline is served.
//   - Once the queue has stood (every request of a whole interval waited
//     longer than the target, or nobody got a slot while some waited past
//     it), the service is overloaded: a request that finds no free slot is
//     refused at once, so that under sustained overload refusals come at
//     once instead of after the wait budget, and the requests queued
//     already drain. An interval in which a request got its slot within
//     the target ends it, and so does a request that finds the queue empty
//     and a slot free.
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
	capacity  int64
	slots     *semaphore.Weighted // one unit per request in flight
	queue     *codel
	decisions *prometheus.CounterVec // by decision; nil: not counted
	log       *slog.Logger
}

// Default target and interval of the adaptive queue (ADMISSION_TARGET,
// ADMISSION_INTERVAL). CoDel's own for packets are 5 ms and 100 ms; a
// request is a thousand times a packet's work, and a burst of a storefront
// (tens of deliveries at once, each waiting for a database connection)
// takes up to a second to serve on a small machine. So the queue stands
// only when every request of a whole second waited more than 100 ms:
// sustained overload is shed at once after a second or two, a burst is
// served.
const (
	DefaultAdmissionTarget   = 100 * time.Millisecond
	DefaultAdmissionInterval = time.Second
)

// The decisions of the admission, the values of the decision label.
const (
	AdmissionAdmitted   = "admitted"     // a slot was free
	AdmissionQueued     = "queued"       // admitted after waiting for a slot
	AdmissionShedAtOnce = "shed_at_once" // refused at once: the queue stands (overload)
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

// acquire takes a slot: at once when one is free; else, while the queue
// is good, waiting for one at most the wait budget; while it stands, not at
// all. The error wraps application.ErrOverloaded when no slot was taken.
func (a *Admission) acquire(ctx context.Context) error {
	arrived := time.Now()
	if a.slots.TryAcquire(1) {
		a.queue.served(arrived)
		a.count(AdmissionAdmitted)
		return nil
	}
	if !a.queue.enter(arrived) {
		a.count(AdmissionShedAtOnce)
		return fmt.Errorf("all %d slots taken and the queue has stood above %s for %s: %w",
			a.capacity, a.queue.target, a.queue.interval, application.ErrOverloaded)
	}
	ctx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	err := a.slots.Acquire(ctx, 1)
	now := time.Now()
	a.queue.leave(now, now.Sub(arrived))
	if err != nil {
		a.count(AdmissionShedWaited)
		return fmt.Errorf("no slot of %d came free within %s: %w", a.capacity, a.wait, application.ErrOverloaded)
	}
	a.count(AdmissionQueued)
	return nil
}

func (a *Admission) count(decision string) {
	if a.decisions != nil {
		a.decisions.WithLabelValues(decision).Inc()
	}
}

// codel is the state of the adaptive queue: whether the requests waiting
// for a slot form a standing queue (overload) or a good one. It follows
// CoDel's rule as request queues use it (Facebook's "Fail at Scale", the
// folly library's Codel): at the end of each interval, the queue stands if
// the shortest wait of the requests that got a slot in it was above the
// target. A request that finds a slot free counts as a wait of zero, so a
// queue that has been empty within the interval is a good one.
type codel struct {
	target, interval time.Duration

	mu          sync.Mutex
	end         time.Time     // end of the current interval
	minWait     time.Duration // shortest wait that ended in the current interval
	sampled     bool          // whether any wait ended in it
	standing    bool          // the verdict of the last interval
	waiting     int           // requests waiting for a slot now
	nonEmptyFor time.Time     // since when some request has been waiting
}

func newCodel(target, interval time.Duration) *codel {
	return &codel{target: target, interval: interval}
}

// roll closes the interval when it has ended: the queue stands when the
// shortest wait in it was above the target, or, when no wait ended in it,
// when requests have been waiting longer than the target without one of
// them getting a slot. Called with mu held.
func (c *codel) roll(now time.Time) {
	if now.Before(c.end) {
		return
	}
	// The interval judged is the last one that ended: the current one, or,
	// when a whole interval more has passed without a call, an interval in
	// which no wait ended.
	if c.sampled && now.Before(c.end.Add(c.interval)) {
		c.standing = c.minWait > c.target
	} else {
		c.standing = c.waiting > 0 && now.Sub(c.nonEmptyFor) > c.target
	}
	c.sampled, c.end = false, now.Add(c.interval)
}

func (c *codel) sample(wait time.Duration) {
	if !c.sampled || wait < c.minWait {
		c.minWait = wait
	}
	c.sampled = true
}

// served records a request that found a slot free. Nobody was waiting
// (the semaphore gives a free slot to a waiting request first): the queue
// has just been empty, so it does not stand, whatever the last interval
// said — a burst right after another is queued like the first.
func (c *codel) served(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.roll(now)
	c.sample(0)
	c.standing = false
}

// enter reports whether a request that found no free slot may wait for
// one, and counts it as waiting if so: not while the queue stands.
func (c *codel) enter(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.roll(now)
	if c.standing {
		return false
	}
	if c.waiting == 0 {
		c.nonEmptyFor = now
	}
	c.waiting++
	return true
}

// leave records a request that stopped waiting after wait, with a slot or
// without one (a wait that ran out is a wait too).
func (c *codel) leave(now time.Time, wait time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting--
	c.roll(now)
	c.sample(wait)
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
