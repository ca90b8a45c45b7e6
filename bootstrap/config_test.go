package bootstrap_test

import (
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain"
)

// load calls bootstrap.Load with environ, refusing a nil map: with nil the
// env library falls back to the process environment, which would make these
// tests depend on the machine that runs them.
func load(t *testing.T, environ map[string]string) (bootstrap.Config, error) {
	t.Helper()
	if environ == nil {
		t.Fatal("test bug: Load needs a non-nil map, or the process environment leaks in")
	}
	return bootstrap.Load(environ)
}

// mustLoad is load for an environment that Load must accept.
func mustLoad(t *testing.T, environ map[string]string) bootstrap.Config {
	t.Helper()
	c, err := load(t, environ)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refusal is an environment that Load must refuse with an error naming want.
type refusal struct {
	env  map[string]string
	want string
}

// checkRefused runs each refusal as a subtest: Load must fail with an error
// that contains its want; then each check, if any, looks at that error.
func checkRefused(t *testing.T, cases map[string]refusal, checks ...func(*testing.T, error)) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, tc.env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want an error naming %s", err, tc.want)
			}
			for _, check := range checks {
				check(t, err)
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	c, err := load(t, map[string]string{})
	if err != nil {
		t.Fatalf("Load(empty) = %v, want no error", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"DATABASE_URL", c.DatabaseURL, "postgres://postgres@127.0.0.1:5432/fulfillment?sslmode=disable"},
		{"HTTP_ADDR", c.HTTPAddr, ":8080"},
		{"ENVIRONMENT", c.Environment, domain.Sandbox},
		{"AUTH_SIGNING_KEY", c.SigningKey, ""},
		{"AUTH_JWKS_URL", c.JWKSURL, ""},
		{"AUTH_ISSUER", c.Issuer, ""},
		{"AUTH_AUDIENCE", c.Audience, ""},
		{"AUTH_ORG_CLAIM", c.OrgClaim, "org_id"},
		{"AUTH_WAREHOUSE_CLAIM", c.WarehouseClaim, "warehouse_id"},
		{"LOG_LEVEL", c.LogLevel, slog.LevelInfo},
		{"OTEL_TRACES_EXPORTER", c.TracesExporter, "otlp"},
		{"tracing protocol", c.Tracing().Protocol, ""},
		{"REQUEST_TIMEOUT", c.RequestTimeout, 4 * time.Second},
		{"SHUTDOWN_TIMEOUT", c.ShutdownTimeout, 25 * time.Second},
		{"SHUTDOWN_DELAY", c.ShutdownDelay, 2 * time.Second},
		{"DB_MAX_CONNS", c.DBMaxConns, 4 * runtime.GOMAXPROCS(0)},
		{"FAILED_ORDER_RETENTION", c.FailedOrderRetention, 720 * time.Hour},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

// The map given to Load is the whole environment: what the process has set
// must not leak in. The first half shows the process variables are really
// there (nil falls back to them), so the second half can fail.
func TestConfigReadsOnlyTheGivenMap(t *testing.T) {
	t.Setenv("LOG_LEVEL", "chatty")
	t.Setenv("ENVIRONMENT", "staging")

	if _, err := bootstrap.Load(nil); err == nil {
		t.Fatal("Load(nil) with a bad process LOG_LEVEL = nil error; the leak check below would prove nothing")
	}
	c, err := load(t, map[string]string{})
	if err != nil {
		t.Fatalf("Load(empty map) = %v: the process environment leaked in", err)
	}
	if c.LogLevel != slog.LevelInfo || c.Environment != domain.Sandbox {
		t.Errorf("Load(empty map) = level %v, environment %q; want info, sandbox", c.LogLevel, c.Environment)
	}
}

func TestConfigValid(t *testing.T) {
	key32 := strings.Repeat("k", bootstrap.MinSigningKeyBytes)
	tests := []struct {
		name    string
		environ map[string]string
		get     func(bootstrap.Config) any // the setting under test
		want    any
	}{
		{"production", map[string]string{"ENVIRONMENT": "production"},
			func(c bootstrap.Config) any { return c.Environment }, domain.Production},
		{"log level debug", map[string]string{"LOG_LEVEL": "debug"},
			func(c bootstrap.Config) any { return c.LogLevel }, slog.LevelDebug},
		{"log level error", map[string]string{"LOG_LEVEL": "error"},
			func(c bootstrap.Config) any { return c.LogLevel }, slog.LevelError},
		{"postgresql scheme", map[string]string{"DATABASE_URL": "postgresql://u@db:5432/f?sslmode=verify-full"},
			func(c bootstrap.Config) any { return c.DatabaseURL }, "postgresql://u@db:5432/f?sslmode=verify-full"},
		{"HTTP_ADDR with host", map[string]string{"HTTP_ADDR": "127.0.0.1:9090"},
			func(c bootstrap.Config) any { return c.HTTPAddr }, "127.0.0.1:9090"},
		{"signing key of exactly 32 bytes", map[string]string{"AUTH_SIGNING_KEY": key32},
			func(c bootstrap.Config) any { return c.SigningKey }, key32},
		{"JWKS URL", map[string]string{"AUTH_JWKS_URL": "https://idp.example/.well-known/jwks.json"},
			func(c bootstrap.Config) any { return c.JWKSURL }, "https://idp.example/.well-known/jwks.json"},
		{"org claim", map[string]string{"AUTH_ORG_CLAIM": "https://acme.example/org"},
			func(c bootstrap.Config) any { return c.OrgClaim }, "https://acme.example/org"},
		{"exporter none ignores the OTLP protocol", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			func(c bootstrap.Config) any { return c.Tracing().Exporter }, "none"},
		{"OTLP over http/protobuf", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			func(c bootstrap.Config) any { return c.Tracing().Protocol }, "http/protobuf"},
		{"request timeout", map[string]string{"REQUEST_TIMEOUT": "2500ms"},
			func(c bootstrap.Config) any { return c.RequestTimeout }, 2500 * time.Millisecond},
		{"pool size", map[string]string{"DB_MAX_CONNS": "3"},
			func(c bootstrap.Config) any { return c.DBMaxConns }, 3},
		{"failed-order retention", map[string]string{"FAILED_ORDER_RETENTION": "168h"},
			func(c bootstrap.Config) any { return c.FailedOrderRetention }, 168 * time.Hour},
		{"the longest delay the stop allows", map[string]string{"SHUTDOWN_TIMEOUT": "10s", "REQUEST_TIMEOUT": "4s", "SHUTDOWN_DELAY": "5s"},
			func(c bootstrap.Config) any { return c.ShutdownDelay }, 5 * time.Second},
		{"session limits below the deadline", map[string]string{"REQUEST_TIMEOUT": "4s"},
			func(c bootstrap.Config) any { return c.SessionLimits() }, postgres.SessionLimits{
				StatementTimeout: 3 * time.Second, LockTimeout: 2 * time.Second, IdleInTransactionTimeout: 3 * time.Second, IOTimeout: 4 * time.Second,
				ClientCheckInterval: 250 * time.Millisecond}},
		{"export timeout by default", map[string]string{}, func(c bootstrap.Config) any { return c.ExportTimeout }, 10 * time.Minute},
		{"export timeout", map[string]string{"EXPORT_TIMEOUT": "30m"}, func(c bootstrap.Config) any { return c.ExportTimeout }, 30 * time.Minute},
		{"export timeout equal to the request deadline", map[string]string{"EXPORT_TIMEOUT": "4s", "REQUEST_TIMEOUT": "4s"},
			func(c bootstrap.Config) any { return c.ExportTimeout }, 4 * time.Second},
		{"traces protocol wins over the generic one", map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			func(c bootstrap.Config) any { return c.Tracing().Protocol }, "http/protobuf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.environ)
			if err != nil {
				t.Fatalf("Load(%v) = %v, want no error", tt.environ, err)
			}
			if got := tt.get(c); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConfigInvalid(t *testing.T) {
	tests := []struct {
		name    string
		environ map[string]string
		wantErr string // the variable the error must name
	}{
		{"unknown environment", map[string]string{"ENVIRONMENT": "staging"}, "ENVIRONMENT"},
		{"environment in capitals", map[string]string{"ENVIRONMENT": "Production"}, "ENVIRONMENT"},
		{"unknown log level", map[string]string{"LOG_LEVEL": "verbose"}, "LOG_LEVEL"},
		{"database URL of another scheme", map[string]string{"DATABASE_URL": "mysql://u@db:3306/f"}, "DATABASE_URL"},
		{"database URL without host", map[string]string{"DATABASE_URL": "postgres:///fulfillment"}, "DATABASE_URL"},
		{"database URL that is no URL", map[string]string{"DATABASE_URL": "host=db user=u"}, "DATABASE_URL"},
		{"database URL that does not parse", map[string]string{"DATABASE_URL": "postgres://u@db:5432/%zz"}, "DATABASE_URL"},
		{"HTTP_ADDR without port", map[string]string{"HTTP_ADDR": "localhost"}, "HTTP_ADDR"},
		{"HTTP_ADDR bare number", map[string]string{"HTTP_ADDR": "8080"}, "HTTP_ADDR"},
		{"HTTP_ADDR empty port", map[string]string{"HTTP_ADDR": "127.0.0.1:"}, "HTTP_ADDR"},
		{"signing key of 31 bytes", map[string]string{"AUTH_SIGNING_KEY": strings.Repeat("k", bootstrap.MinSigningKeyBytes-1)}, "AUTH_SIGNING_KEY"},
		{"JWKS URL of another scheme", map[string]string{"AUTH_JWKS_URL": "ftp://idp.example/jwks.json"}, "AUTH_JWKS_URL"},
		{"JWKS URL without host", map[string]string{"AUTH_JWKS_URL": "https:///jwks.json"}, "AUTH_JWKS_URL"},
		{"JWKS URL that is a path", map[string]string{"AUTH_JWKS_URL": "/jwks.json"}, "AUTH_JWKS_URL"},
		{"unknown traces exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER"},
		{"OTLP over gRPC", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"OTLP over gRPC, explicit exporter", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"empty org claim", map[string]string{"AUTH_ORG_CLAIM": ""}, "AUTH_ORG_CLAIM"},
		{"blank org claim", map[string]string{"AUTH_ORG_CLAIM": "  "}, "AUTH_ORG_CLAIM"},
		{"empty warehouse claim", map[string]string{"AUTH_WAREHOUSE_CLAIM": ""}, "AUTH_WAREHOUSE_CLAIM"},
		{"warehouse claim equal to the org claim", map[string]string{"AUTH_WAREHOUSE_CLAIM": "org_id"}, "AUTH_WAREHOUSE_CLAIM"},
		{"request timeout not a duration", map[string]string{"REQUEST_TIMEOUT": "soon"}, "REQUEST_TIMEOUT"},
		{"request timeout too short", map[string]string{"REQUEST_TIMEOUT": "10ms"}, "REQUEST_TIMEOUT"},
		{"request timeout too long", map[string]string{"REQUEST_TIMEOUT": "2m"}, "REQUEST_TIMEOUT"},
		{"export timeout not a duration", map[string]string{"EXPORT_TIMEOUT": "soon"}, "EXPORT_TIMEOUT"},
		{"export timeout below the request deadline", map[string]string{"EXPORT_TIMEOUT": "3s", "REQUEST_TIMEOUT": "4s"}, "EXPORT_TIMEOUT"},
		{"export timeout too long", map[string]string{"EXPORT_TIMEOUT": "25h"}, "EXPORT_TIMEOUT"},
		{"pool of none", map[string]string{"DB_MAX_CONNS": "0"}, "DB_MAX_CONNS"},
		{"pool not a number", map[string]string{"DB_MAX_CONNS": "many"}, "DB_MAX_CONNS"},
		{"pool too large", map[string]string{"DB_MAX_CONNS": "5000"}, "DB_MAX_CONNS"},
		{"shutdown timeout too short", map[string]string{"SHUTDOWN_TIMEOUT": "500ms"}, "SHUTDOWN_TIMEOUT"},
		{"negative delay", map[string]string{"SHUTDOWN_DELAY": "-1s"}, "SHUTDOWN_DELAY"},
		{"a delay the stop cannot fit", map[string]string{"SHUTDOWN_TIMEOUT": "10s", "REQUEST_TIMEOUT": "4s", "SHUTDOWN_DELAY": "5001ms"}, "SHUTDOWN_DELAY"},
		{"a delay of a minute in the default stop", map[string]string{"SHUTDOWN_DELAY": "60s"}, "SHUTDOWN_DELAY"},
		{"retention not a duration", map[string]string{"FAILED_ORDER_RETENTION": "a month"}, "FAILED_ORDER_RETENTION"},
		{"retention of nothing", map[string]string{"FAILED_ORDER_RETENTION": "0s"}, "FAILED_ORDER_RETENTION"},
		{"negative retention", map[string]string{"FAILED_ORDER_RETENTION": "-1h"}, "FAILED_ORDER_RETENTION"},
		{"retention beyond ten years", map[string]string{"FAILED_ORDER_RETENTION": "87601h"}, "FAILED_ORDER_RETENTION"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.environ)
			if err == nil {
				t.Fatalf("Load(%v) = nil error, want one naming %s", tt.environ, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Load(%v) = %q, want it to name %s", tt.environ, err, tt.wantErr)
			}
		})
	}
}

func TestConfigRequireAuth(t *testing.T) {
	tests := []struct {
		name    string
		environ map[string]string
		wantErr bool
	}{
		{"neither key nor JWKS", map[string]string{}, true},
		{"issuer and audience alone", map[string]string{"AUTH_ISSUER": "https://idp.example/", "AUTH_AUDIENCE": "fulfillment"}, true},
		{"signing key", map[string]string{"AUTH_SIGNING_KEY": strings.Repeat("k", 32)}, false},
		{"JWKS URL", map[string]string{"AUTH_JWKS_URL": "https://idp.example/jwks.json"}, false},
		{"both", map[string]string{"AUTH_SIGNING_KEY": strings.Repeat("k", 32), "AUTH_JWKS_URL": "https://idp.example/jwks.json"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.environ)
			if err != nil {
				t.Fatalf("Load(%v) = %v, want no error", tt.environ, err)
			}
			err = c.RequireAuth()
			if (err != nil) != tt.wantErr {
				t.Fatalf("RequireAuth() = %v, want error: %v", err, tt.wantErr)
			}
			if err != nil && (!strings.Contains(err.Error(), "AUTH_SIGNING_KEY") || !strings.Contains(err.Error(), "AUTH_JWKS_URL")) {
				t.Errorf("RequireAuth() = %q, want it to name AUTH_SIGNING_KEY and AUTH_JWKS_URL", err)
			}
		})
	}
}
