package bootstrap

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
)

// Config is every setting of the service (README.md, Configuration), parsed
// once from the environment.
type Config struct {
	DatabaseURL    string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/fulfillment?sslmode=disable"`
	HTTPAddr       string `env:"HTTP_ADDR" envDefault:":8080"`
	EnvironmentRaw string `env:"ENVIRONMENT" envDefault:"sandbox"`
	SigningKey     string `env:"AUTH_SIGNING_KEY"`
	JWKSURL        string `env:"AUTH_JWKS_URL"`
	Issuer         string `env:"AUTH_ISSUER"`
	Audience       string `env:"AUTH_AUDIENCE"`
	OrgClaim       string `env:"AUTH_ORG_CLAIM" envDefault:"org_id"`
	WarehouseClaim string `env:"AUTH_WAREHOUSE_CLAIM" envDefault:"warehouse_id"`
	LogLevelRaw    string `env:"LOG_LEVEL" envDefault:"info"`
	TracesExporter string `env:"OTEL_TRACES_EXPORTER" envDefault:"otlp"`
	OTLPProtocol   string `env:"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"`
	OTLPProtocolV  string `env:"OTEL_EXPORTER_OTLP_PROTOCOL"`
	// ShutdownDelay is how long /readyz answers 503 before the listener
	// closes on SIGTERM, so that load balancers stop sending traffic first.
	ShutdownDelay time.Duration `env:"SHUTDOWN_DELAY" envDefault:"2s"`
	// ShutdownTimeout bounds the whole stop: delay, drain, closing the
	// database and flushing spans.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"25s"`
	// RequestTimeout is the deadline of every /v0 request.
	RequestTimeout time.Duration `env:"REQUEST_TIMEOUT" envDefault:"4s"`
	// ExportTimeout is the deadline of a download (an invoice's charges as
	// CSV), in place of RequestTimeout: a large client's month is millions
	// of rows.
	ExportTimeout time.Duration `env:"EXPORT_TIMEOUT" envDefault:"10m"`
	// DBMaxConns is the size of the connection pool; 0 (unset) is
	// 4 × GOMAXPROCS.
	DBMaxConns int `env:"DB_MAX_CONNS"`
	// AdmissionTarget and AdmissionInterval drive the adaptive admission
	// queue (docs/rate-limits.md, overload): once every request of an
	// interval has waited longer than the target for a slot, new arrivals
	// that find none free are refused at once.
	AdmissionTarget   time.Duration `env:"ADMISSION_TARGET" envDefault:"100ms"`
	AdmissionInterval time.Duration `env:"ADMISSION_INTERVAL" envDefault:"1s"`
	// Rate limits (docs/rate-limits.md): the default limit of every
	// organization and warehouse, and the Redis that shares the buckets
	// between replicas (in memory per replica without it).
	RateLimitRaw      string `env:"RATE_LIMIT" envDefault:"20/s"`
	RateLimitBurst    int    `env:"RATE_LIMIT_BURST" envDefault:"40"`
	RateLimitRedisURL string `env:"RATE_LIMIT_REDIS_URL"`

	// MigrationLockTimeout bounds each wait of a migration for a lock held
	// by another session, and MigrationLockRetries is how many times a
	// migration that gave up is tried again (docs/migrations.md).
	MigrationLockTimeout time.Duration `env:"MIGRATION_LOCK_TIMEOUT" envDefault:"1s"`
	MigrationLockRetries int           `env:"MIGRATION_LOCK_RETRIES" envDefault:"5"`

	// FailedOrderRetention is how long a failed storefront order's body is
	// kept after its last delivery, for a replay.
	FailedOrderRetention time.Duration `env:"FAILED_ORDER_RETENTION" envDefault:"720h"`

	// Billing (docs/billing.md): the time zone of its days and months, the
	// grace after a period before its invoice is finalized, the payment
	// terms, the wait after the due date before collecting, and how often
	// serve runs it.
	BillingTimezone         string        `env:"BILLING_TIMEZONE" envDefault:"UTC"`
	BillingGrace            time.Duration `env:"BILLING_GRACE" envDefault:"24h"`
	BillingTerms            time.Duration `env:"BILLING_TERMS" envDefault:"720h"`
	BillingCollectionsAfter time.Duration `env:"BILLING_COLLECTIONS_AFTER" envDefault:"720h"`
	BillingInterval         time.Duration `env:"BILLING_INTERVAL" envDefault:"15m"`

	// Events for the platform (docs/events.md): none are recorded unless
	// EVENTS_NATS_URL names the broker. Credentials: a .creds file, or a
	// user and password, or a token (or in the URL).
	EventsNATSURL      string `env:"EVENTS_NATS_URL"`
	EventsStream       string `env:"EVENTS_STREAM" envDefault:"FULFILLMENT"`
	EventsNATSCreds    string `env:"EVENTS_NATS_CREDS"`
	EventsNATSUser     string `env:"EVENTS_NATS_USER"`
	EventsNATSPassword string `env:"EVENTS_NATS_PASSWORD"`
	EventsNATSToken    string `env:"EVENTS_NATS_TOKEN"`
	// The settings of a stream the service creates; an existing stream
	// needs EventsDuplicateWindow at least.
	EventsStreamReplicas  int           `env:"EVENTS_STREAM_REPLICAS" envDefault:"1"`
	EventsStreamMaxAge    time.Duration `env:"EVENTS_STREAM_MAX_AGE" envDefault:"168h"`
	EventsDuplicateWindow time.Duration `env:"EVENTS_DUPLICATE_WINDOW" envDefault:"10m"`

	// Tracing beyond the exporter: sampling and the resource (see
	// docs/observability.md).
	TracesSampler    string `env:"OTEL_TRACES_SAMPLER"`
	TracesSamplerArg string `env:"OTEL_TRACES_SAMPLER_ARG"`
	ServiceName      string `env:"OTEL_SERVICE_NAME" envDefault:"fulfillment"`

	// The operator's console (docs/console.md): served on its own listener
	// when ConsoleAddr is set. ConsoleURL is its origin as browsers reach it
	// (the sign-in links' and the OpenID callback's); default
	// http://CONSOLE_ADDR, 127.0.0.1 for an address without a host.
	ConsoleAddr             string `env:"CONSOLE_ADDR"`
	ConsoleURL              string `env:"CONSOLE_URL"`
	ConsoleOIDCIssuer       string `env:"CONSOLE_OIDC_ISSUER"`
	ConsoleOIDCClientID     string `env:"CONSOLE_OIDC_CLIENT_ID"`
	ConsoleOIDCClientSecret string `env:"CONSOLE_OIDC_CLIENT_SECRET"`
	ConsoleOIDCRolesClaim   string `env:"CONSOLE_OIDC_ROLES_CLAIM" envDefault:"roles"`

	// GOGC is the Go runtime's own variable, read here only to know
	// whether it is set: `serve` collects garbage less often by default
	// (ServeGCPercent), and an explicit GOGC wins.
	GOGC string `env:"GOGC"`

	// Derived by Load.
	Environment     domain.Environment `env:"-"`
	LogLevel        slog.Level         `env:"-"`
	BillingLocation *time.Location     `env:"-"`
	RateLimit       domain.RateLimit   `env:"-"`
}

// ServeGCPercent is the garbage collector's target for `serve` when GOGC
// is not set: a collection when the heap has grown to five times what
// survived the last one (Go's default is twice). The server's live heap is
// a few megabytes, and its garbage is per request, so the collector's CPU
// falls by about three quarters for some tens of megabytes more, while
// the CPUs are shared with PostgreSQL. Under a memory limit (GOMEMLIMIT,
// which the chart sets from the container's), the runtime collects sooner
// anyway.
const ServeGCPercent = 400

// shutdownReserve is the part of SHUTDOWN_TIMEOUT kept for closing the
// database and flushing spans after the requests have drained.
const shutdownReserve = time.Second

// MinSigningKeyBytes is the shortest AUTH_SIGNING_KEY accepted: an HS256
// key shorter than the hash's 32 bytes weakens every token (RFC 7518 §3.2).
const MinSigningKeyBytes = 32

// Load reads the environment (lookup is os.LookupEnv in the binary, a map
// in tests) and validates every setting. Errors name the variable.
func Load(environ map[string]string) (Config, error) {
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Environment: environ}); err != nil {
		return c, parseError(err)
	}
	var err error
	if c.Environment, err = domain.ParseEnvironment(c.EnvironmentRaw); err != nil {
		return c, fmt.Errorf("ENVIRONMENT: %q is neither sandbox nor production", c.EnvironmentRaw)
	}
	if c.LogLevel, err = telemetry.ParseLevel(c.LogLevelRaw); err != nil {
		return c, err
	}
	if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return c, errors.New("DATABASE_URL: not a postgres://user@host:port/database URL")
	}
	if _, port, err := net.SplitHostPort(c.HTTPAddr); err != nil || port == "" {
		return c, fmt.Errorf("HTTP_ADDR: %q is not host:port (for example :8080)", c.HTTPAddr)
	}
	if c.SigningKey != "" && len(c.SigningKey) < MinSigningKeyBytes {
		return c, fmt.Errorf("AUTH_SIGNING_KEY: must be at least %d bytes", MinSigningKeyBytes)
	}
	if c.JWKSURL != "" {
		if u, err := url.Parse(c.JWKSURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return c, errors.New("AUTH_JWKS_URL: not an http(s) URL")
		}
	}
	if c.RequestTimeout < 100*time.Millisecond || c.RequestTimeout > time.Minute {
		return c, errors.New("REQUEST_TIMEOUT: must be between 100ms and 1m")
	}
	if c.ExportTimeout < c.RequestTimeout || c.ExportTimeout > 24*time.Hour {
		return c, fmt.Errorf("EXPORT_TIMEOUT: must be a duration between REQUEST_TIMEOUT (%s) and 24h (for example 10m)", c.RequestTimeout)
	}
	if _, set := environ["DB_MAX_CONNS"]; set && (c.DBMaxConns < 1 || c.DBMaxConns > 1000) {
		return c, errors.New("DB_MAX_CONNS: must be an integer between 1 and 1000")
	}
	if c.DBMaxConns == 0 {
		c.DBMaxConns = 4 * runtime.GOMAXPROCS(0)
	}
	if err := c.validateFairUse(environ); err != nil {
		return c, err
	}
	if c.FailedOrderRetention < time.Second || c.FailedOrderRetention > 87600*time.Hour {
		return c, errors.New("FAILED_ORDER_RETENTION: must be a duration between 1s and 87600h (for example 720h)")
	}
	if c.MigrationLockTimeout < 10*time.Millisecond || c.MigrationLockTimeout > time.Minute {
		return c, errors.New("MIGRATION_LOCK_TIMEOUT: must be a duration between 10ms and 1m (for example 1s)")
	}
	if c.MigrationLockRetries < 0 || c.MigrationLockRetries > 20 {
		return c, errors.New("MIGRATION_LOCK_RETRIES: must be an integer between 0 and 20")
	}
	if err := c.loadBilling(environ); err != nil {
		return c, err
	}
	if c.ShutdownTimeout < time.Second || c.ShutdownTimeout > 10*time.Minute {
		return c, errors.New("SHUTDOWN_TIMEOUT: must be between 1s and 10m")
	}
	// The stop must fit: the delay, then draining requests that each end
	// within REQUEST_TIMEOUT, then a second for closing and flushing.
	if c.ShutdownDelay < 0 || c.ShutdownDelay+c.RequestTimeout+shutdownReserve > c.ShutdownTimeout {
		return c, fmt.Errorf("SHUTDOWN_DELAY: must be between 0s and %s (SHUTDOWN_TIMEOUT %s − REQUEST_TIMEOUT %s − %s to close and flush)",
			max(c.ShutdownTimeout-c.RequestTimeout-shutdownReserve, 0), c.ShutdownTimeout, c.RequestTimeout, shutdownReserve)
	}
	// The env library replaces a variable set to "" by its default, so an
	// explicitly empty AUTH_ORG_CLAIM is caught on the raw value.
	if raw, set := environ["AUTH_ORG_CLAIM"]; strings.TrimSpace(c.OrgClaim) == "" || (set && strings.TrimSpace(raw) == "") {
		return c, errors.New("AUTH_ORG_CLAIM: must not be empty")
	}
	if raw, set := environ["AUTH_WAREHOUSE_CLAIM"]; strings.TrimSpace(c.WarehouseClaim) == "" || (set && strings.TrimSpace(raw) == "") {
		return c, errors.New("AUTH_WAREHOUSE_CLAIM: must not be empty")
	}
	if c.WarehouseClaim == c.OrgClaim {
		return c, fmt.Errorf("AUTH_WAREHOUSE_CLAIM: must differ from AUTH_ORG_CLAIM (both %q)", c.OrgClaim)
	}
	if err := telemetry.ValidateTracing(c.Tracing()); err != nil {
		return c, err
	}
	if err := c.validateEvents(); err != nil {
		return c, err
	}
	if err := c.validateConsole(environ); err != nil {
		return c, err
	}
	return c, nil
}

// loadBilling validates the billing settings and loads the time zone.
func (c *Config) loadBilling(environ map[string]string) error {
	zone := strings.TrimSpace(c.BillingTimezone)
	if raw, set := environ["BILLING_TIMEZONE"]; set && strings.TrimSpace(raw) == "" {
		zone = ""
	}
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" || zone == "Local" {
		return fmt.Errorf("BILLING_TIMEZONE: %q is not an IANA time zone (for example UTC or America/New_York)", c.BillingTimezone)
	}
	c.BillingLocation = loc
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"BILLING_GRACE", c.BillingGrace}, {"BILLING_TERMS", c.BillingTerms}, {"BILLING_COLLECTIONS_AFTER", c.BillingCollectionsAfter}} {
		if d.v < 0 || d.v > 87600*time.Hour {
			return fmt.Errorf("%s: must be a duration between 0s and 87600h (for example 24h)", d.name)
		}
	}
	if c.BillingInterval < time.Second || c.BillingInterval > 24*time.Hour {
		return errors.New("BILLING_INTERVAL: must be a duration between 1s and 24h (for example 15m)")
	}
	return nil
}

// Billing is the billing part of the configuration, for its use cases.
func (c Config) Billing() billingapp.Settings {
	return billingapp.Settings{Calendar: billing.NewCalendar(c.BillingLocation), Grace: c.BillingGrace,
		Terms: c.BillingTerms, CollectionsAfter: c.BillingCollectionsAfter}
}

// BillingStore is what the billing repositories need: the time zone of
// storage days, and whether test shipments are charged (sandbox only).
func (c Config) BillingStore() postgres.Option {
	return postgres.WithBilling(postgres.BillingSettings{Location: c.BillingLocation, ChargeTestShipments: c.Environment == domain.Sandbox})
}

// Migration is how the migrator waits for locks: MIGRATION_LOCK_TIMEOUT
// per wait, MIGRATION_LOCK_RETRIES retries after pauses of 1 s, doubling.
func (c Config) Migration() postgres.MigrateOptions {
	return postgres.MigrateOptions{LockTimeout: c.MigrationLockTimeout, LockRetries: c.MigrationLockRetries,
		RetryBackoff: postgres.DefaultMigrationRetryBackoff}
}

// SessionLimits are the bounds the server sets on its database sessions,
// all below the request deadline: a statement gets three quarters of it, a
// wait for a lock held by another session half, and a transaction whose
// client went quiet three quarters; a round trip without a deadline of its
// own (database/sql's COMMIT and ROLLBACK) gets the whole deadline. A
// statement whose client hung up is ended within a quarter of a second
// (ClientCheckInterval). A download lifts the statement's bound to its own
// deadline (EXPORT_TIMEOUT), inside its read-only transaction.
func (c Config) SessionLimits() postgres.SessionLimits {
	return postgres.SessionLimits{
		StatementTimeout:         c.RequestTimeout * 3 / 4,
		LockTimeout:              c.RequestTimeout / 2,
		IdleInTransactionTimeout: c.RequestTimeout * 3 / 4,
		IOTimeout:                c.RequestTimeout,
		ClientCheckInterval:      250 * time.Millisecond,
	}
}

// parseError names the variable of a value the env library could not parse
// (its own errors name the Go field), with the value's problem.
func parseError(err error) error {
	var pe env.ParseError
	if errors.As(err, &pe) {
		if f, ok := reflect.TypeFor[Config]().FieldByName(pe.Name); ok {
			return fmt.Errorf("%s: %w", f.Tag.Get("env"), pe.Err)
		}
	}
	return fmt.Errorf("configuration: %w", err)
}

// RequireAuth checks what serve needs beyond Load: a way to verify tokens.
func (c Config) RequireAuth() error {
	if c.SigningKey == "" && c.JWKSURL == "" {
		return errors.New("AUTH_SIGNING_KEY or AUTH_JWKS_URL must be set to serve")
	}
	return nil
}

// Tracing is the tracing part of the configuration.
func (c Config) Tracing() telemetry.TracingConfig {
	protocol := c.OTLPProtocol
	if protocol == "" {
		protocol = c.OTLPProtocolV
	}
	return telemetry.TracingConfig{
		Exporter: c.TracesExporter, Protocol: protocol,
		Sampler: c.TracesSampler, SamplerArg: c.TracesSamplerArg,
		ServiceName: c.ServiceName, ServiceVersion: Version, Environment: string(c.Environment),
	}
}

// Version is the build's version, set with -ldflags.
var Version = "dev"
