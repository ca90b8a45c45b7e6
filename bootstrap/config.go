package bootstrap

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
)

// Config is every setting of CONTRACT §1, parsed once from the environment.
type Config struct {
	DatabaseURL    string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/fulfillment?sslmode=disable"`
	HTTPAddr       string `env:"HTTP_ADDR" envDefault:":8080"`
	EnvironmentRaw string `env:"ENVIRONMENT" envDefault:"sandbox"`
	SigningKey     string `env:"AUTH_SIGNING_KEY"`
	JWKSURL        string `env:"AUTH_JWKS_URL"`
	Issuer         string `env:"AUTH_ISSUER"`
	Audience       string `env:"AUTH_AUDIENCE"`
	OrgClaim       string `env:"AUTH_ORG_CLAIM" envDefault:"org_id"`
	LogLevelRaw    string `env:"LOG_LEVEL" envDefault:"info"`
	TracesExporter string `env:"OTEL_TRACES_EXPORTER" envDefault:"otlp"`
	OTLPProtocol   string `env:"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"`
	OTLPProtocolV  string `env:"OTEL_EXPORTER_OTLP_PROTOCOL"`
	// ShutdownDelay is how long /readyz answers 503 before the listener
	// closes on SIGTERM, so that load balancers stop sending traffic first.
	ShutdownDelay time.Duration `env:"SHUTDOWN_DELAY" envDefault:"2s"`

	// Tracing beyond the exporter: sampling and the resource (see
	// docs/observability.md).
	TracesSampler    string `env:"OTEL_TRACES_SAMPLER"`
	TracesSamplerArg string `env:"OTEL_TRACES_SAMPLER_ARG"`
	ServiceName      string `env:"OTEL_SERVICE_NAME" envDefault:"fulfillment"`

	// Derived by Load.
	Environment domain.Environment `env:"-"`
	LogLevel    slog.Level         `env:"-"`
}

// MinSigningKeyBytes is the shortest AUTH_SIGNING_KEY accepted: an HS256
// key shorter than the hash's 32 bytes weakens every token (RFC 7518 §3.2).
const MinSigningKeyBytes = 32

// Load reads the environment (lookup is os.LookupEnv in the binary, a map
// in tests) and validates every setting. Errors name the variable.
func Load(environ map[string]string) (Config, error) {
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Environment: environ}); err != nil {
		return c, fmt.Errorf("configuration: %w", err)
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
	if c.ShutdownDelay < 0 || c.ShutdownDelay > 60*time.Second {
		return c, errors.New("SHUTDOWN_DELAY: must be between 0s and 60s")
	}
	// The env library replaces a variable set to "" by its default, so an
	// explicitly empty AUTH_ORG_CLAIM is caught on the raw value.
	if raw, set := environ["AUTH_ORG_CLAIM"]; strings.TrimSpace(c.OrgClaim) == "" || (set && strings.TrimSpace(raw) == "") {
		return c, errors.New("AUTH_ORG_CLAIM: must not be empty")
	}
	if err := telemetry.ValidateTracing(c.Tracing()); err != nil {
		return c, err
	}
	return c, nil
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
