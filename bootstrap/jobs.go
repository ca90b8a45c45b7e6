package bootstrap

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/application"
)

// A job is work `serve` does in the background on every replica, started
// and stopped by fx: the failed-order purge and billing runs (tickerJob:
// a ticker with jitter, each run one trace and at most one log line) and
// the refresh of the organizations' limits; the events relay runs its own
// policy (eventsapp.RunRelayHandler, startRelay) the same way (startLoop).
// Exactly-once comes from the database (unique keys, guarded updates, row
// locks), never from the belief that one replica runs it; the purge,
// billing and the relay are also CLI commands, for a Kubernetes CronJob or
// an operator.
type job struct {
	first time.Duration // the wait before the first run
	// run does one run and returns the wait before the next.
	run func(ctx context.Context) (next time.Duration)
}

// startJob runs j with the server (startLoop).
func startJob(lc fx.Lifecycle, j job) {
	startLoop(lc, func(ctx context.Context) { runLoop(ctx, j) })
}

// startLoop runs loop with the server, in a goroutine of its own, until
// its context ends: it starts in OnStart and is stopped in OnStop, which
// waits for a run in progress to end or roll back before the database
// closes (fx stops hooks in reverse order: those of what the loop uses,
// appended when it was built, come after).
func startLoop(lc fx.Lifecycle, loop func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				loop(ctx)
			}()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
			case <-stop.Done():
			}
			return nil
		},
	})
}

// runLoop is a job's loop, until ctx ends.
func runLoop(ctx context.Context, j job) {
	wait := j.first
	for ctx.Err() == nil {
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		wait = j.run(ctx)
	}
}

// tickerJob runs fn first after first, then every every (both jittered),
// each run one trace, its root span "job <name>", and one log line when
// it did something or failed. fn returns the line's message and
// attributes, or "" for a run that did nothing worth a line.
func tickerJob(name string, first, every time.Duration, tracer trace.Tracer, log *slog.Logger,
	fn func(ctx context.Context) (msg string, attrs []slog.Attr, err error),
) job {
	return job{first: application.Jitter(first), run: func(ctx context.Context) time.Duration {
		ctx, span := tracer.Start(ctx, "job "+name, trace.WithNewRoot())
		defer span.End()
		start := time.Now()
		msg, attrs, err := fn(ctx)
		attrs = append(attrs, slog.String("job", name), slog.Duration("duration", time.Since(start)))
		switch {
		case err != nil && ctx.Err() == nil:
			span.RecordError(err)
			span.SetStatus(codes.Error, "job failed")
			log.LogAttrs(ctx, slog.LevelWarn, name+" failed", append(attrs, slog.String("error", err.Error()))...)
		case err == nil && msg != "":
			log.LogAttrs(ctx, slog.LevelInfo, msg, attrs...)
		}
		return application.Jitter(every)
	}}
}
