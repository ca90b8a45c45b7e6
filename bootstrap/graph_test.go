package bootstrap_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/identity"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/bootstrap"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

var testDSN string

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &testDSN)) }

const signingKey = "graph-test-signing-key-0123456789abcdef"

func testConfig(t *testing.T) bootstrap.Config {
	t.Helper()
	cfg, err := bootstrap.Load(map[string]string{
		"DATABASE_URL":         testDSN,
		"AUTH_SIGNING_KEY":     signingKey,
		"OTEL_TRACES_EXPORTER": "none",
		"HTTP_ADDR":            "127.0.0.1:0",
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestGraphIsValid(t *testing.T) {
	var stderr bytes.Buffer
	if err := fx.ValidateApp(bootstrap.Options(testConfig(t), &stderr)...); err != nil {
		t.Fatalf("the fx graph does not validate: %v", err)
	}
}

func TestGraphRefusesMissingAuth(t *testing.T) {
	cfg := testConfig(t)
	cfg.SigningKey = ""
	app := fx.New(append(bootstrap.Options(cfg, &bytes.Buffer{}), fx.NopLogger)...)
	if app.Err() == nil || !strings.Contains(app.Err().Error(), "AUTH_SIGNING_KEY or AUTH_JWKS_URL") {
		t.Fatalf("err = %v, want a missing-auth error", app.Err())
	}
}

// TestTracingLayers drives one warehouse request through the real graph and
// checks the three span layers: the HTTP server span named by route
// template, the use case span below it, and query spans below that without
// argument values.
func TestTracingLayers(t *testing.T) {
	ctx := context.Background()
	seedWarehouse(t)
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	var handler http.Handler
	var logs bytes.Buffer
	app := fx.New(append(bootstrap.Options(testConfig(t), &logs),
		fx.NopLogger,
		fx.Decorate(func(*sdktrace.TracerProvider) *sdktrace.TracerProvider { return tp }),
		fx.Populate(&handler),
	)...)
	startCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = app.Stop(ctx) }()

	token, err := identity.MintToken(identity.TokenConfig{SigningKey: []byte(signingKey)},
		identity.MintParams{Organization: "org_graph", Scopes: []string{"locations"}, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/v0/warehouses?take=5", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "wh_graph") {
		t.Fatalf("status %d body %s", rec.Code, rec.Body)
	}

	spans := recorder.Ended()
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = s
	}
	server, ok := byName["GET /v0/warehouses"]
	if !ok {
		t.Fatalf("no server span named by route template among %v", names(spans))
	}
	useCase, ok := byName["ListWarehouses"]
	if !ok || useCase.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Fatalf("use case span missing or not a child of the server span: %v", names(spans))
	}
	var queries int
	for _, s := range spans {
		if s.Parent().SpanID() != useCase.SpanContext().SpanID() {
			continue
		}
		queries++
		for _, a := range s.Attributes() {
			if strings.HasPrefix(string(a.Key), "db.") && strings.Contains(a.Value.String(), "org_graph") {
				t.Errorf("query span %q carries an argument value: %s=%s", s.Name(), a.Key, a.Value.String())
			}
		}
	}
	if queries == 0 {
		t.Fatalf("no query span below the use case span: %v", names(spans))
	}
	if got := rec.Header().Get("X-Trace-Id"); got != server.SpanContext().TraceID().String() {
		t.Fatalf("X-Trace-Id %q is not the server span's trace %s", got, server.SpanContext().TraceID())
	}
	if !strings.Contains(logs.String(), `"trace_id":"`+server.SpanContext().TraceID().String()) {
		t.Fatalf("log lines do not carry the trace id:\n%s", logs.String())
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}

func seedWarehouse(t *testing.T) {
	t.Helper()
	db := pgtest.Open(t, testDSN)
	uow := postgres.NewUnitOfWork(db, pgfixture.Repositories)
	err := uow.Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, graphFixture())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
