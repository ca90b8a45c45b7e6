package bootstrap

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
)

// A job is work `serve` does in the background on every replica (the
// failed-order purge, billing runs): a ticker with jitter, started and
// stopped by fx, each run one trace and at most one log line. Exactly-once
// comes from the database (unique keys, guarded updates, row locks),
// never from the belief that one replica runs it; each job is also a CLI
// command, for a Kubernetes CronJob or an operator.
type job struct {
	name  string        // the root span's name: "job <name>"
	first time.Duration // before the first run (jittered)
	every time.Duration // between runs (jittered)
	// run does one run; it returns the log line's message and attributes,
	// or "" for a run that did nothing worth a line.
	run func(ctx context.Context) (msg string, attrs []slog.Attr, err error)
}

// jitter spreads d by ±20 %, so that replicas started together do not
// run together.
func jitter(d time.Duration) time.Duration {
	return d*8/10 + rand.N(d*4/10+1) //nolint:gosec // spreading timers needs no secure randomness
}

// startJob runs j with the server: its loop starts in OnStart and stops in
// OnStop, which waits for a run in progress to end or roll back before the
// database closes.
func startJob(lc fx.Lifecycle, tracer trace.Tracer, log *slog.Logger, j job) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				timer := time.NewTimer(jitter(j.first))
				defer timer.Stop()
				for {
					select {
					case <-ctx.Done():
						return
					case <-timer.C:
					}
					runJob(ctx, tracer, log, j)
					timer.Reset(jitter(j.every))
				}
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

// runJob is one run: one trace, and one log line when it did something or
// failed.
func runJob(ctx context.Context, tracer trace.Tracer, log *slog.Logger, j job) {
	ctx, span := tracer.Start(ctx, "job "+j.name, trace.WithNewRoot())
	defer span.End()
	start := time.Now()
	msg, attrs, err := j.run(ctx)
	attrs = append(attrs, slog.String("job", j.name), slog.Duration("duration", time.Since(start)))
	switch {
	case err != nil && ctx.Err() == nil:
		span.RecordError(err)
		span.SetStatus(codes.Error, "job failed")
		log.LogAttrs(ctx, slog.LevelWarn, j.name+" failed", append(attrs, slog.String("error", err.Error()))...)
	case err == nil && msg != "":
		log.LogAttrs(ctx, slog.LevelInfo, msg, attrs...)
	}
}
