package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/acme3pl/fulfillment/application"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// RunRelay runs the relay until its context ends: the job every server
// runs (docs/events.md). `fulfillment events relay` runs RelayEvents
// instead, until the outbox is empty.
type RunRelay struct {
	// Wake tells of a local commit that wrote events: a channel of one
	// slot, so that wake-ups coalesce. Nil: only the relay's own timer
	// starts its runs.
	Wake <-chan struct{}
}

// relayPoll is how often an idle relay looks at the outbox for events
// other replicas committed (its own commits wake it: relayPause).
const relayPoll = 200 * time.Millisecond

// relayGather is how long a relay woken by a commit waits for the commits
// that follow it, so that a burst goes out as one batch.
const relayGather = 5 * time.Millisecond

// relayInterval is the least time between the starts of two runs while
// events keep coming: under steady load the commits of an interval go out
// as one batch. Each batch has a cost whatever it carries — a claim, a
// delete and a commit in the database, a wake-up of the relay, a round of
// replication among the brokers of a cluster — and woken by every commit,
// the relay made batches of a few events each, which spent more on that
// than on the events. The price is lag under load, up to an interval; an
// idle relay is not held back (relayGather only), and a run whose last
// batch came full is followed at once (a backlog drains at the broker's
// pace).
const relayInterval = 250 * time.Millisecond

// relayPause is how long the relay waits, once woken (by a commit, or
// its timer after wait), before its run: relayGather after a commit, so
// that a burst goes out as one batch; and, unless it goes on at once after
// a full run (wait 0), until relayInterval after the start of the last run
// that published (sinceLast ago), so that under steady load the commits
// of an interval go out together. An idle relay's last run is long past.
func relayPause(byCommit bool, wait, sinceLast time.Duration) time.Duration {
	var pause time.Duration
	if byCommit {
		pause = relayGather
	}
	if wait > 0 {
		pause = max(pause, relayInterval-sinceLast)
	}
	return pause
}

// relayBackoff is the wait after the n-th failure in a row: 100 ms
// doubling up to 5 s, so that a broker back from an outage is used within
// seconds, and a broker away for an hour costs a check every 5 s.
func relayBackoff(n int) time.Duration {
	return min(100*time.Millisecond<<min(n, 6), 5*time.Second)
}

// streamCheckWait bounds the wait for the broker of the check at start.
const streamCheckWait = 10 * time.Second

// RunRelayHandler answers RunRelay: the relay's run policy around
// RelayEventsHandler.Run.
type RunRelayHandler struct {
	relay  *RelayEventsHandler
	stream eventsports.EventStream
	log    *slog.Logger
}

// NewRunRelayHandler builds the handler: relay's runs, the stream it
// checks at start, and the logger of its warnings (a broker away, back).
func NewRunRelayHandler(relay *RelayEventsHandler, stream eventsports.EventStream, log *slog.Logger) *RunRelayHandler {
	return &RunRelayHandler{relay: relay, stream: stream, log: log}
}

// Handle checks the stream, then runs the relay at once, after each local
// commit that wrote events (c.Wake), every relayPoll — under steady load
// no sooner than relayInterval after the last run that published
// (relayPause) — at once again after a run whose last batch came full, and
// relayBackoff after a failure, until ctx ends. It starts no goroutine: it
// returns when ctx ends, after the run in progress has ended or rolled
// back (the server runs it in a goroutine of its own and waits for it at
// shutdown, before the relay's pool closes).
func (h *RunRelayHandler) Handle(ctx context.Context, c RunRelay) {
	h.checkStreamAtStart(ctx)
	r := relayRuns{h: h}
	loop(ctx, c.Wake, r.run)
}

// loop runs run at once, then after each wait it returns, until ctx ends.
// A wake-up ends a wait only when the run before it let it (wakeable: the
// relay's poll, not its back-off), and the run knows a wake-up started it.
func loop(ctx context.Context, wake <-chan struct{}, run func(ctx context.Context, woken bool) (next time.Duration, wakeable bool)) {
	next, wakeable := time.Duration(0), false
	for ctx.Err() == nil {
		timer := time.NewTimer(next)
		w := wake
		if !wakeable {
			w = nil
		}
		woken := false
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-w:
			timer.Stop()
			woken = true
		case <-timer.C:
		}
		next, wakeable = run(ctx, woken)
	}
}

// checkStreamAtStart looks at the stream as soon as the broker answers
// (creating it when missing, reporting an existing one's problems), so
// that a misconfigured stream is said at start, not at the first event.
// A broker that does not answer within streamCheckWait leaves the check to
// the first batch.
func (h *RunRelayHandler) checkStreamAtStart(ctx context.Context) {
	wait, cancel := context.WithTimeout(ctx, streamCheckWait)
	defer cancel()
	for !h.relay.publisher.Connected() {
		if !sleep(wait, 50*time.Millisecond) {
			return
		}
	}
	if err := h.stream.EnsureStream(wait); err != nil && ctx.Err() == nil {
		h.log.WarnContext(ctx, "events stream not checked at start: the first batch will", slog.String("error", err.Error()))
	}
}

// relayRuns is the state of the relay's runs between two of them.
type relayRuns struct {
	h        *RunRelayHandler
	failures int           // runs failed in a row
	wait     time.Duration // the wait before this run
	last     time.Time     // the start of the last run that published
}

// run is one run of the relay, after its pause; it returns the wait before
// the next, and whether a commit may cut it short.
func (r *relayRuns) run(ctx context.Context, byCommit bool) (next time.Duration, wakeable bool) {
	if pause := relayPause(byCommit, r.wait, time.Since(r.last)); pause > 0 && !sleep(ctx, pause) {
		return 0, false
	}
	start := time.Now()
	n, more, err := r.h.relay.Run(ctx, RelayEvents{})
	if n > 0 {
		r.last = start
	}
	switch {
	case ctx.Err() != nil:
		return 0, false
	case err != nil:
		r.failures++
		if r.failures == 1 || r.failures%60 == 0 {
			r.h.log.WarnContext(ctx, "relay events: the outbox keeps them until the broker takes them",
				slog.Int("published", n), slog.Int("failures", r.failures), slog.String("error", err.Error()))
		}
		// Backing off: commits do not cut the wait short.
		r.wait = application.Jitter(relayBackoff(r.failures))
		return r.wait, false
	case r.failures > 0:
		r.h.log.InfoContext(ctx, "relay events: the broker takes events again", slog.Int("failures", r.failures))
	}
	r.failures = 0
	if more {
		// Going on at once: a commit meanwhile does not hold the run back.
		r.wait = 0
		return 0, false
	}
	r.wait = application.Jitter(relayPoll)
	return r.wait, true
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
