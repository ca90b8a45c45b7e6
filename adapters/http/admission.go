package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
)

// AdmissionConfig sizes Admission.
type AdmissionConfig struct {
	// Timeout is the request deadline: every admitted request is answered
	// within it, by its handler or, failing that, by Admission.
	Timeout time.Duration
	// MaxInFlight requests run at once: the size of the connection pool, as
	// each request holds at most one connection at a time.
	MaxInFlight int
	// QueueWait bounds a wait for a turn. A request whose expected wait is
	// longer is refused at once; one still waiting after it is refused then
	// (the requests in flight are stuck: a stalled database).
	QueueWait time.Duration
	// MaxQueue bounds the requests waiting, whatever their expected wait.
	MaxQueue int
}

// NewAdmissionConfig derives the queue from the deadline and the pool: a
// request may wait for a turn a quarter of its deadline, and at most 64
// rounds of the pool wait at once.
func NewAdmissionConfig(timeout time.Duration, poolSize int) AdmissionConfig {
	return AdmissionConfig{Timeout: timeout, MaxInFlight: poolSize, QueueWait: timeout / 4, MaxQueue: 64 * poolSize}
}

// Admission keeps every /v0 request within its deadline, whatever the
// database does. At most MaxInFlight requests run at once; the others wait
// for a turn when it can be expected within QueueWait (the queue's length
// times the recent time a request holds its turn, over MaxInFlight) and are
// shed at once with 503 and Retry-After otherwise, instead of queueing past
// their deadline. A wait that lasts beyond QueueWait all the same (the
// database stalled since the estimate) ends in a 503 too.
// An admitted request's context ends a little before its deadline, so that
// its handler can roll back and answer for itself; if it has not answered
// when the deadline comes (a round trip that ignores its context, a stuck
// CPU), Admission answers 503 for it and drops whatever it writes later. A
// client that goes away is recorded as status 499.
type Admission struct {
	cfg     AdmissionConfig
	slots   chan struct{}
	queued  chan struct{}
	handler time.Duration // the handler's own deadline, before cfg.Timeout
	hold    atomic.Int64  // moving average of the time a request holds its turn, in ns
	idle    chan func()   // unbuffered: a send succeeds only when a worker waits (run)
	log     *slog.Logger
}

// NewAdmission builds the admission control of one server.
func NewAdmission(cfg AdmissionConfig, log *slog.Logger) *Admission {
	if cfg.MaxInFlight < 1 {
		cfg.MaxInFlight = 1
	}
	// The handler's margin: a tenth of the deadline, 20 ms to 500 ms.
	margin := min(max(cfg.Timeout/10, 20*time.Millisecond), 500*time.Millisecond)
	return &Admission{
		cfg: cfg, slots: make(chan struct{}, cfg.MaxInFlight), queued: make(chan struct{}, max(cfg.MaxQueue, 0)),
		handler: max(cfg.Timeout-margin, cfg.Timeout/2), idle: make(chan func()), log: log,
	}
}

// Queued tells how many requests wait for a turn right now.
func (a *Admission) Queued() int { return len(a.queued) }

// errorWriter answers an error in a route's error shape (problem+json, or
// the order intake's own).
type errorWriter func(w http.ResponseWriter, r *http.Request, err error)

// Guard wraps one route's handler; a nil Admission returns it as it is.
func (a *Admission) Guard(write errorWriter, next http.Handler) http.Handler {
	if a == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if err := a.acquire(r.Context()); err != nil {
			a.answer(w, r, write, err)
			return
		}
		admitted := time.Now()
		ctx, cancel := context.WithDeadline(r.Context(), start.Add(a.handler))
		bw := bufferedWriters.Get().(*bufferedWriter)
		done := make(chan any, 1)
		a.run(func() {
			defer func() {
				cancel()
				a.release(time.Since(admitted))
				done <- recover()
			}()
			next.ServeHTTP(bw, r.WithContext(ctx))
		})
		deadline := time.NewTimer(time.Until(start.Add(a.cfg.Timeout)))
		defer deadline.Stop()
		select {
		case p := <-done:
			if p != nil {
				panic(p) // to the recovery middleware, as if the handler ran here
			}
			bw.copyTo(w)
			bw.recycle()
		case <-deadline.C:
			bw.abandon()
			a.answer(w, r, write, fmt.Errorf("no answer within %s: %w", a.cfg.Timeout, domain.ErrTimeout))
			go a.logLatePanic(r, done)
		case <-r.Context().Done():
			bw.abandon()
			w.WriteHeader(application.StatusClientClosedRequest)
			go a.logLatePanic(r, done)
		}
	})
}

// run runs job on a goroutine apart, so that the request can be answered at
// its deadline whatever the job does: an idle worker of the admission's when
// one waits, else a new one, which then stays for later jobs until it has
// waited workerIdle for one. A goroutine started per request would grow its
// stack anew every time for the handler's deep call chain (router, use
// case, database/sql, driver): that cost a read 6 % of its CPU.
func (a *Admission) run(job func()) {
	select {
	case a.idle <- job:
	default:
		go a.work(job)
	}
}

// workerIdle is how long a worker waits for its next job before it ends.
const workerIdle = 10 * time.Second

func (a *Admission) work(job func()) {
	wait := time.NewTimer(workerIdle)
	defer wait.Stop()
	for {
		job()
		wait.Reset(workerIdle)
		select {
		case job = <-a.idle:
		case <-wait.C:
			return
		}
	}
}

// acquire takes a turn: at once when a slot is free, else after waiting in
// the queue when the wait can be expected within QueueWait.
func (a *Admission) acquire(ctx context.Context) error {
	select {
	case a.slots <- struct{}{}:
		return nil
	default:
	}
	if wait := time.Duration(int64(len(a.queued)+1) * a.hold.Load() / int64(a.cfg.MaxInFlight)); wait > a.cfg.QueueWait {
		return fmt.Errorf("%d requests waiting, a turn expected in %s: %w", len(a.queued), wait, application.ErrOverloaded)
	}
	select {
	case a.queued <- struct{}{}:
	default:
		return fmt.Errorf("%d requests waiting: %w", a.cfg.MaxQueue, application.ErrOverloaded)
	}
	defer func() { <-a.queued }()
	wait := time.NewTimer(a.cfg.QueueWait)
	defer wait.Stop()
	select {
	case a.slots <- struct{}{}:
		return nil
	case <-wait.C:
		return fmt.Errorf("no turn within %s: %w", a.cfg.QueueWait, application.ErrOverloaded)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives a turn back and folds the time it was held into the moving
// average (weight 1/16: a few dozen requests make the estimate).
func (a *Admission) release(held time.Duration) {
	<-a.slots
	for {
		old := a.hold.Load()
		if a.hold.CompareAndSwap(old, old+(int64(held)-old)/16) {
			return
		}
	}
}

// answer writes an error of admission itself in the route's shape; a
// client that went away gets no body.
func (a *Admission) answer(w http.ResponseWriter, r *http.Request, write errorWriter, err error) {
	if r.Context().Err() != nil {
		w.WriteHeader(application.StatusClientClosedRequest)
		return
	}
	write(w, r, err)
}

// logLatePanic waits for an abandoned handler and logs a panic it ends
// with: nobody else will.
func (a *Admission) logLatePanic(r *http.Request, done <-chan any) {
	if p := <-done; p != nil {
		a.log.ErrorContext(r.Context(), "panic serving request after its answer", slog.Any("panic", p),
			slog.String("method", r.Method), slog.String("path", r.URL.Path))
	}
}

// bufferedWriter holds a handler's answer until Admission knows it came in
// time. After abandon, writes are dropped.
type bufferedWriter struct {
	mu        sync.Mutex
	header    http.Header
	status    int
	body      bytes.Buffer
	abandoned bool
}

// bufferedWriters keeps the writers of answers copied out, with their
// header map and body buffer, for the next requests. An abandoned writer is
// never reused: its handler may still write to it.
var bufferedWriters = sync.Pool{New: func() any { return &bufferedWriter{header: http.Header{}} }}

// recycle empties b and returns it to bufferedWriters, after copyTo. A rare
// huge body's buffer is not kept.
func (b *bufferedWriter) recycle() {
	if b.body.Cap() > 1<<20 {
		return
	}
	clear(b.header) // the response shares the values, which nobody changes; the map is ours
	b.status = 0
	b.body.Reset()
	bufferedWriters.Put(b)
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(code int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.abandoned {
		return 0, http.ErrHandlerTimeout
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedWriter) abandon() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.abandoned = true
}

// copyTo writes the held answer; the handler has returned, so nothing
// writes to b any more.
func (b *bufferedWriter) copyTo(w http.ResponseWriter) {
	dst := w.Header()
	for k, vs := range b.header {
		dst[k] = vs
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}
