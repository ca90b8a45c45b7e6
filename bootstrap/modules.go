package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	accesshttp "github.com/acme3pl/fulfillment/adapters/httpapi/access"
	intakehttp "github.com/acme3pl/fulfillment/adapters/httpapi/intake"
	invoicinghttp "github.com/acme3pl/fulfillment/adapters/httpapi/invoicing"
	shippinghttp "github.com/acme3pl/fulfillment/adapters/httpapi/shipping"
	warehousehttp "github.com/acme3pl/fulfillment/adapters/httpapi/warehouse"
	"github.com/acme3pl/fulfillment/adapters/identity"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	pgintake "github.com/acme3pl/fulfillment/adapters/postgres/intake"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	pgoperator "github.com/acme3pl/fulfillment/adapters/postgres/operator"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	"github.com/acme3pl/fulfillment/adapters/ratelimit"
	"github.com/acme3pl/fulfillment/adapters/system"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/migrations"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

// Stderr is where logs go; tests replace it.
type Stderr io.Writer

// Options is the whole service graph for `fulfillment serve`.
func Options(cfg Config, stderr io.Writer) []fx.Option {
	return []fx.Option{
		fx.Supply(cfg, fx.Annotate(stderr, fx.As(new(Stderr))), cfg.ServerDatabase()),
		fx.WithLogger(func(log *slog.Logger) fxevent.Logger {
			l := &fxevent.SlogLogger{Logger: log}
			l.UseLogLevel(slog.LevelDebug)
			return l
		}),
		TelemetryModule,
		PostgresModule,
		IdentityModule,
		ApplicationModule,
		HTTPModule,
		FairUseModule,
		FailedOrdersModule,
		EventsModule,
		BillingModule,
		BillingJobModule,
		consoleOptions(cfg),
	}
}

// TelemetryModule provides the logger, the tracer provider and metrics.
var TelemetryModule = fx.Module("telemetry",
	fx.Provide(
		func(cfg Config, stderr Stderr) *slog.Logger { return telemetry.NewLogger(stderr, cfg.LogLevel) },
		newTracerProvider,
		func(tp *sdktrace.TracerProvider) trace.TracerProvider { return tp },
		func(tp trace.TracerProvider) trace.Tracer { return tp.Tracer("github.com/acme3pl/fulfillment") },
		telemetry.NewMetrics,
	),
	fx.Invoke(registerCollectors),
)

func newTracerProvider(lc fx.Lifecycle, cfg Config, log *slog.Logger) (*sdktrace.TracerProvider, error) {
	tp, err := telemetry.NewTracerProvider(context.Background(), cfg.Tracing())
	if err != nil {
		return nil, err
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.WarnContext(context.Background(), "opentelemetry", slog.String("error", err.Error()))
	}))
	// Flushing gets what is left of SHUTDOWN_TIMEOUT, so that an
	// unreachable collector cannot hold the pod past its grace period.
	lc.Append(fx.StopHook(func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil {
			log.WarnContext(ctx, "flush spans", slog.String("error", err.Error()))
		}
		return nil
	}))
	return tp, nil
}

// PostgresModule provides the database, the migrator, and each context's
// unit of work and repositories bound to the pool (ports.UnitOfWork[R] and
// R, for each context's Repositories R): the units of work share one
// postgres.Transactions (one set of prepared statements, one outbox), the
// repositories on the pool one postgres.Handle. The pool's options
// (postgres.Options) come from the graph: the server's
// (Config.ServerDatabase) or a command's (CommandOptions).
var PostgresModule = fx.Module("postgres",
	fx.Provide(
		newDB,
		func(db *bun.DB, cfg Config) (*postgres.Migrator, error) {
			return postgres.NewMigrator(db, migrations.FS, cfg.Migration())
		},
		func(db *bun.DB, cfg Config, outbox *postgres.Outbox) *postgres.Transactions {
			return postgres.NewTransactions(db, outbox, cfg.BillingStore())
		},
		func(db *bun.DB, cfg Config) postgres.Handle { return postgres.OnPool(db, cfg.BillingStore()) },
		func(r accessports.Repositories) accessports.APIKeyRepository { return r.APIKeys },
		func(r accessports.Repositories) accessports.WebhookSecretRepository { return r.WebhookSecrets },
		func(h postgres.Handle) ports.Overview { return postgres.Overview(h) },
		func(db *bun.DB, m *postgres.Migrator) httpapi.ReadinessChecker {
			return postgres.Readiness{DB: db, Migrator: m}
		},
	),
	contextStore(pgshipping.Repositories),
	contextStore(pgintake.Repositories),
	contextStore(pgwarehouse.Repositories),
	contextStore(pgbilling.Repositories),
	contextStore(pginvoicing.Repositories(pgbilling.InvoiceCharges)),
	contextStore(pgoperator.Repositories),
	contextStore(pgaccess.Repositories),
	contextStore(pgfixture.Repositories),
)

// contextStore provides a context's unit of work and its repositories on
// the pool, both built by its bind.
func contextStore[R any](bind func(postgres.Handle) R) fx.Option {
	return fx.Provide(
		func(t *postgres.Transactions) ports.UnitOfWork[R] { return postgres.UnitOfWorkOf(t, bind) },
		func(h postgres.Handle) R { return bind(h) },
	)
}

// ServerDatabase is the server's pool: DB_MAX_CONNS connections, every
// session bounded below the request deadline.
func (c Config) ServerDatabase() postgres.Options {
	return postgres.Options{DSN: c.DatabaseURL, MaxOpenConns: c.DBMaxConns, Limits: c.SessionLimits()}
}

func newDB(lc fx.Lifecycle, opts postgres.Options, log *slog.Logger) (*bun.DB, error) {
	postgres.LogDriverTo(log)
	db, err := postgres.Open(opts)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}

// IdentityModule provides the verifiers of access tokens, API keys and
// storefront webhook signatures.
var IdentityModule = fx.Module("identity",
	fx.Provide(
		newTokenVerifier,
		func(repo accessports.APIKeyRepository, cfg Config) accessports.APIKeyVerifier {
			return identity.NewAPIKeyVerifier(repo, cfg.Environment)
		},
		fx.Annotate(identity.NewWebhookSignatures, fx.As(new(accessports.StorefrontSignatureVerifier))),
	),
)

// TokenConfig is the identity part of the configuration.
func (c Config) TokenConfig(log *slog.Logger) identity.TokenConfig {
	tc := identity.TokenConfig{
		SigningKey: []byte(c.SigningKey), JWKSURL: c.JWKSURL, Issuer: c.Issuer, Audience: c.Audience,
		OrgClaim: c.OrgClaim, WarehouseClaim: c.WarehouseClaim, Logger: log,
	}
	if c.JWKSURL != "" {
		// An external identity provider's clock is not ours: tolerate a
		// little skew on exp/nbf/iat. Tokens this service mints share its
		// clock and get none.
		tc.Leeway = 30 * time.Second
	}
	return tc
}

// newTokenVerifier verifies access tokens, and a warehouse's only while its
// warehouse is active.
func newTokenVerifier(lc fx.Lifecycle, cfg Config, log *slog.Logger, repos accessports.Repositories) (accessports.TokenVerifier, error) {
	if err := cfg.RequireAuth(); err != nil {
		return nil, err
	}
	v, err := identity.NewTokenVerifier(context.Background(), cfg.TokenConfig(log), &http.Client{Timeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(v.Close))
	return identity.NewActiveWarehouses(v, repos.Warehouses), nil
}

// ApplicationModule provides the use cases: each context's New, given to
// fx as it is, takes its application.Deps[R] and what else that context
// needs.
var ApplicationModule = fx.Module("application",
	fx.Provide(
		func() ports.Clock { return system.Clock{} },
		func() ports.IDGenerator { return system.IDs{} },
		func() accessports.APIKeyGenerator { return identity.APIKeyGenerator{} },
		newDeps[shippingports.Repositories],
		newDeps[intakeports.Repositories],
		newDeps[warehouseports.Repositories],
		newDeps[invoicingports.Repositories],
		newDeps[operatorports.Repositories],
		newDeps[accessports.Repositories],
		func(cfg Config) intakeapp.Settings {
			return intakeapp.Settings{FailedOrderRetention: cfg.FailedOrderRetention}
		},
		fx.Annotate(billingapp.NewSeedBilling, fx.As(new(fixtureports.SeedBilling))),
		fx.Annotate(billingapp.NewReportBilling, fx.As(new(warehouseports.ReportBilling))),
		application.New,
		accessapp.New,
		shippingapp.New,
		warehouseapp.New,
		intakeapp.New,
		invoicingapp.New,
		operatorapp.New,
	),
)

// newDeps are the Deps of the context whose Repositories are R.
func newDeps[R any](uow ports.UnitOfWork[R], repos R, clock ports.Clock, ids ports.IDGenerator,
	tracer trace.Tracer, log *slog.Logger, cfg Config,
) application.Deps[R] {
	return application.Deps[R]{UnitOfWork: uow, Repos: repos, Clock: clock, IDs: ids, Tracer: tracer, Log: log,
		Environment: cfg.Environment}
}

// AsRoutes annotates a constructor of an HTTP route group for the router.
func AsRoutes(ctor any) any {
	return fx.Annotate(ctor, fx.As(new(httpapi.Routes)), fx.ResultTags(`group:"routes"`))
}

// AsContextRoutes annotates a context's Routes (adapters/httpapi/<context>),
// the groups of routes of one context, for the router.
func AsContextRoutes(routes any) any {
	return fx.Annotate(routes, fx.ResultTags(`group:"routes,flatten"`))
}

// HTTPModule provides the route groups, the handler and the server, and
// starts it.
var HTTPModule = fx.Module("http",
	fx.Provide(
		func(log *slog.Logger) httpapi.ErrorMapper { return httpapi.ErrorMapper{Log: log} },
		// A request holds at most one connection at a time. Twice the pool
		// in flight lets one request wait for each connection, a wait of one
		// statement's time, far inside the deadline, so that a burst is
		// served; beyond that requests are shed instead of queueing.
		func(cfg Config, m *telemetry.Metrics, log *slog.Logger) *httpapi.Admission {
			return httpapi.NewAdmission(cfg.RequestTimeout, 2*cfg.DBMaxConns, log,
				httpapi.WithAdaptiveQueue(cfg.AdmissionTarget, cfg.AdmissionInterval),
				httpapi.WithDecisionCounter(m.FairUse.AdmissionDecisions),
				httpapi.WithExportTimeout(cfg.ExportTimeout))
		},
		newRateLimiter,
		func(tokens accessports.TokenVerifier, keys accessports.APIKeyVerifier, errs httpapi.ErrorMapper, adm *httpapi.Admission,
			limits *ratelimit.Limiter, log *slog.Logger,
		) httpapi.Authenticator {
			return httpapi.Authenticator{Tokens: tokens, Keys: keys, Errors: errs, Admission: adm, Limits: limits, Log: log}
		},
		httpapi.NewHealth,
		AsRoutes(func(h *httpapi.Health) *httpapi.Health { return h }),
		AsContextRoutes(accesshttp.Routes),
		AsContextRoutes(invoicinghttp.Routes),
		AsContextRoutes(intakehttp.Routes),
		AsContextRoutes(shippinghttp.Routes),
		AsContextRoutes(warehousehttp.Routes),
		AsRoutes(httpapi.NewAPIDocs),
		fx.Annotate(newHTTPHandler, fx.ParamTags(`group:"routes"`)),
	),
	fx.Invoke(startServer),
)

func newHTTPHandler(routes []httpapi.Routes, tp trace.TracerProvider, m *telemetry.Metrics, log *slog.Logger) http.Handler {
	return httpapi.NewHandler(httpapi.RouterParams{
		Routes: routes, TracerProvider: tp, Propagator: otel.GetTextMapPropagator(), Metrics: m, Log: log,
	})
}

// startServer binds the listener in OnStart, so that a port clash fails
// start-up, and drains in OnStop: /readyz turns 503 first, then in-flight
// requests finish (each within REQUEST_TIMEOUT). fx stops hooks in reverse
// order: the server stops before the database closes and before spans are
// flushed, all within SHUTDOWN_TIMEOUT (the stop's context; Load checks
// that the delay and a request's deadline leave room for the rest).
func startServer(lc fx.Lifecycle, sd fx.Shutdowner, cfg Config, h http.Handler, health *httpapi.Health, log *slog.Logger) {
	srv := httpapi.NewServer(cfg.HTTPAddr, h, log)
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			var lcfg net.ListenConfig
			ln, err := lcfg.Listen(ctx, "tcp", cfg.HTTPAddr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
			}
			log.InfoContext(ctx, "serving", slog.String("addr", ln.Addr().String()), slog.String("environment", string(cfg.Environment)))
			// The server outlives OnStart's context; its log line keeps the
			// values but not the deadline.
			serveCtx := context.WithoutCancel(ctx)
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.ErrorContext(serveCtx, "http server stopped", slog.String("error", err.Error()))
					_ = sd.Shutdown(fx.ExitCode(1))
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			health.Drain()
			log.InfoContext(ctx, "shutting down: not ready; draining in-flight requests", slog.Duration("delay", cfg.ShutdownDelay))
			select {
			case <-time.After(cfg.ShutdownDelay):
			case <-ctx.Done():
			}
			return srv.Shutdown(ctx)
		},
	})
}
