package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/uptrace/bun"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/dig"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
)

// CommandOptions is the graph of an operator command (cmd/fulfillment): the
// server's own modules for the database, the repositories and the use
// cases, so that a command runs exactly the wiring `serve` runs, without the
// HTTP server, the background jobs and the identity verifiers. Its pool has
// conns connections and no session limits (a migration may build an index
// for minutes; the command bounds its work by its context instead). A
// command reports its own outcome on stdout and stderr: its use cases record
// no spans and log nothing, and fx's own event log is off. A module a new
// command needs is added here as in Options.
func CommandOptions(cfg Config, conns int) []fx.Option {
	return []fx.Option{
		fx.Supply(cfg, postgres.Options{DSN: cfg.DatabaseURL, MaxOpenConns: conns}),
		fx.NopLogger,
		commandTelemetryModule,
		PostgresModule,
		ApplicationModule,
		BillingModule,
		organizationLimitsModule,
		fx.Provide(func() billingapp.Observer { return billingapp.NopObserver{} }),
		fx.Provide(func(m *postgres.Migrator) Migrations { return m }),
		commandEventsModule,
	}
}

// Migrations are the schema's migrations as `fulfillment migrate` runs
// them: the postgres adapter's Migrator, which the CLI asks the command
// graph for by this name (it imports no adapter of the database).
type Migrations interface {
	// ReportRetries has fn told of each retry of a migration that gave up
	// waiting for a lock, before its pause. Call it before Up.
	ReportRetries(fn func(MigrationRetry))
	// Up applies the pending migrations and returns their names.
	Up(ctx context.Context) (applied []string, err error)
	// Down rolls back the last migration applied and returns its name, ""
	// when none is.
	Down(ctx context.Context) (name string, err error)
	// Status lists every migration, in order, and whether it is applied.
	Status(ctx context.Context) ([]MigrationState, error)
}

// MigrationRetry describes a migration about to be tried again.
type MigrationRetry = postgres.MigrationRetry

// MigrationState is a migration and whether it is applied.
type MigrationState = postgres.MigrationState

// commandTelemetryModule stands for TelemetryModule in a command's graph:
// no log lines, no spans exported, metrics no one reads. Its spans are
// never sampled but carry trace IDs, so that an operator action's audit
// record names the trace of its use case (docs/audit.md).
var commandTelemetryModule = fx.Module("command-telemetry",
	fx.Provide(
		func() *slog.Logger { return slog.New(slog.DiscardHandler) },
		func() trace.TracerProvider {
			return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
		},
		func(tp trace.TracerProvider) trace.Tracer { return tp.Tracer("") },
		telemetry.NewMetrics,
	),
)

// commandEventsModule is what a command needs of events: the outbox that
// its changes record their events into (the servers' relays publish them)
// and the relay of `events relay`, built as the server's (relayModule),
// whose warnings — the broker's connection, the stream — go to stderr as
// JSON lines.
var commandEventsModule = fx.Module("command-events",
	eventRecording,
	relayModule,
	fx.Decorate(func() *slog.Logger {
		return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}),
)

// RunCommand builds the command graph with conns connections, checks that
// the database answers, and runs fn with what it asks for from the graph:
// T is a context's *UseCases for a command that calls use cases
// (*application.UseCases, *intakeapp.UseCases, *billingapp.UseCases, …;
// *eventsapp.RelayEventsHandler, the events context's one use case),
// Migrations for `migrate`, or a struct embedding fx.In for several
// values. The graph is stopped (the pool closed) when fn returns. A graph
// that cannot be built (an unusable DATABASE_URL) is reported by its cause.
func RunCommand[T any](ctx context.Context, cfg Config, conns int, fn func(context.Context, T) error) error {
	var (
		deps T
		db   *bun.DB
	)
	app := fx.New(append(CommandOptions(cfg, conns), fx.Populate(&deps, &db))...)
	if err := app.Err(); err != nil {
		return dig.RootCause(err)
	}
	if err := app.Start(ctx); err != nil {
		return err
	}
	defer func() {
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = app.Stop(stop) // closing the pool: nothing to report once fn is done
	}()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("the database at DATABASE_URL does not answer: %w", err)
	}
	return fn(ctx, deps)
}
