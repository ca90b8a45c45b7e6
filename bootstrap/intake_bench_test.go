package bootstrap_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/fixture"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/bootstrap"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// BenchmarkIntake runs deliveries of the storefront sample (4.9 KB, three
// line items, each with a SKU drawn from a thousand) through the real
// handler of the real graph against PostgreSQL, in parallel: where the
// service's CPU goes on the intake's path, without the network in between.
//
//	go test -run '^$' -bench Intake -benchtime 10s -cpuprofile cpu.out ./bootstrap/
//	go tool pprof -top cpu.out
func BenchmarkIntake(b *testing.B) {
	const skus = 1000
	seedIntakeBench(b, skus)
	sample, err := os.ReadFile(filepath.Join("..", "docs", "samples", "orders-create.json"))
	if err != nil {
		b.Fatal(err)
	}
	order, err := newOrderTemplate(sample)
	if err != nil {
		b.Fatal(err)
	}
	handler := benchHandler(b, "LOG_LEVEL", "warn")
	var nextID atomic.Int64
	nextID.Store(time.Now().UnixMicro() * 1000)
	b.ReportAllocs()
	b.SetParallelism(4) // 8 deliveries at once on 2 CPUs, as bench/intake's 8 clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(uint64(nextID.Add(1)), 1))
		for pb.Next() {
			body := order.with(nextID.Add(1), rng, skus)
			req := httptest.NewRequest(http.MethodPost, "/v0/storefront/orders", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if !serveOK(b, handler, req, benchKey) {
				return
			}
		}
	})
}

// serveOK serves req with credential as its bearer and reports whether
// it was answered 200, failing the benchmark if not.
func serveOK(b *testing.B, handler http.Handler, req *http.Request, credential string) bool {
	req.Header.Set("Authorization", "Bearer "+credential)
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Errorf("status %d: %s", w.Code, w.Body)
		return false
	}
	return true
}

const benchKey = "fk_test_BenchIntakeGraph0123456789abcdefghijklmn"

// orderTemplate is the sample cut where each delivery of the benchmark
// has its own values: the order's id and three SKUs. Cut once, so that
// making a body costs the benchmark next to nothing of what it measures.
type orderTemplate [5][]byte

func newOrderTemplate(sample []byte) (orderTemplate, error) {
	var t orderTemplate
	rest := sample
	for i, mark := range []string{`"id": 5726128734520`, `"SOCK-MER-CH-4346"`, `"KEY-LTH-01 "`, `"sku": ""`} {
		before, after, ok := bytes.Cut(rest, []byte(mark))
		if !ok {
			return t, fmt.Errorf("the sample has no %s", mark)
		}
		t[i], rest = before, after
	}
	t[4] = rest
	return t, nil
}

// with is the sample with the order id id and three distinct SKUs of
// BENCH-00001… BENCH-<skus>.
func (t orderTemplate) with(id int64, rng *rand.Rand, skus int) []byte {
	a := 1 + rng.IntN(skus)
	bb := a%skus + 1
	c := bb%skus + 1
	out := make([]byte, 0, len(t[0])+len(t[1])+len(t[2])+len(t[3])+len(t[4])+64)
	out = strconv.AppendInt(append(append(out, t[0]...), `"id": `...), id, 10)
	out = appendSKU(append(out, t[1]...), a)
	out = appendSKU(append(out, t[2]...), bb)
	out = appendSKU(append(append(out, t[3]...), `"sku": `...), c)
	return append(out, t[4]...)
}

// appendSKU appends the quoted SKU BENCH-nnnnn (n < 100,000).
func appendSKU(b []byte, n int) []byte {
	digits := strconv.Itoa(100000 + n)
	return append(append(append(b, `"BENCH-`...), digits[1:]...), '"')
}

// seedIntakeBench loads an organization with a warehouse, skus products
// BENCH-00001… and the API key benchKey.
func seedIntakeBench(b *testing.B, skus int) {
	b.Helper()
	var doc strings.Builder
	doc.WriteString(`{"organizations": [{"id": "org_bench", "name": "Bench", "defaultWarehouseId": "wh_bench"}],
		"warehouses": [{"id": "wh_bench", "name": "Bench DC", "description": null, "active": true, "tags": [],
			"organizations": ["org_bench"], "address": {"name": "Bench DC", "line1": "1 Dock St", "line2": "", "district": "",
			"city": "Newark", "state": "NJ", "countryCode": "US", "postalCode": "07102"},
			"contact": {"name": "Ops", "email": "ops@example.com", "phoneNumber": "+1 555 0100", "fax": ""}}],
		"apiKeys": [{"id": "key_bench", "organizationId": "org_bench", "key": "` + benchKey + `",
			"scopes": ["shipments", "inventory"], "revoked": false}],
		"products": [`)
	for i := 1; i <= skus; i++ {
		if i > 1 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"id": "prod_bench_%d", "organizationId": "org_bench", "sku": "BENCH-%05d", "name": "Bench"}`, i, i)
	}
	doc.WriteString(`]}`)
	loadBenchFixture(b, doc.String())
}

// loadBenchFixture loads a fixture document into the test database.
func loadBenchFixture(b *testing.B, doc string) {
	b.Helper()
	f, err := fixture.Decode(strings.NewReader(doc), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	err = postgres.NewUnitOfWork(pgtest.Open(b, testDSN), pgfixture.Repositories).Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, f)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// benchHandler starts the real graph, as `serve` does (sandbox, no span
// export unless the environment's OTEL_* settings say otherwise, GOGC=400),
// with the settings env adds (name, value, …), and returns its HTTP handler.
func benchHandler(b *testing.B, env ...string) http.Handler {
	b.Helper()
	vars := map[string]string{
		"DATABASE_URL": testDSN, "AUTH_SIGNING_KEY": signingKey, "OTEL_TRACES_EXPORTER": "none",
		"HTTP_ADDR": "127.0.0.1:0",
	}
	// The OTEL_* settings of the environment apply, so that the benchmark
	// can measure tracing (bench/intake/instructions.sh).
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") {
			vars[k] = v
		}
	}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	cfg, err := bootstrap.Load(vars)
	if err != nil {
		b.Fatal(err)
	}
	var handler http.Handler
	app := fx.New(append(bootstrap.Options(cfg, io.Discard), fx.NopLogger, fx.Populate(&handler))...)
	old := debug.SetGCPercent(bootstrap.ServeGCPercent) // as `serve` runs it
	b.Cleanup(func() { debug.SetGCPercent(old) })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := app.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = app.Stop(context.Background()) })
	return handler
}
