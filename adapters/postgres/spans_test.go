package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// attr is the value of s's attribute key, "" when it has none.
func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

// checkStatementSpan checks the attributes every statement's span has,
// and that none of its db.* attributes carries one of the values.
func checkStatementSpan(t *testing.T, s sdktrace.ReadOnlySpan, values ...string) {
	t.Helper()
	if s.SpanKind() != trace.SpanKindClient {
		t.Errorf("span %q is a %v span, want client", s.Name(), s.SpanKind())
	}
	if attr(s, "db.system.name") != "postgresql" || attr(s, "db.operation.name") != s.Name() ||
		attr(s, "db.namespace") == "" || attr(s, "db.query.text") == "" {
		t.Errorf("span %q: attributes %v, want db.system.name postgresql, db.operation.name its name, db.namespace, db.query.text", s.Name(), s.Attributes())
	}
	for _, a := range s.Attributes() {
		for _, v := range values {
			if strings.HasPrefix(string(a.Key), "db.") && strings.Contains(a.Value.String(), v) {
				t.Errorf("span %q carries an argument value: %s=%s", s.Name(), a.Key, a.Value.String())
			}
		}
	}
}

// TestBunQuerySpans: a statement run through bun inside a recorded span
// gets its client span, with placeholders where its values go, the rows it
// affected and its error; a missing row is no error; a statement outside a
// recorded span gets none, and leaves the span it runs under alone; a
// transaction's BEGIN and its end are siblings under the caller's span.
func TestBunQuerySpans(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "parent")
	const secret = "wh_span_secret_value"

	var id string
	if err := db.NewSelect().TableExpr("warehouses").Column("id").Where("id = ?", secret).Scan(ctx, &id); err == nil {
		t.Fatal("want no row")
	}
	if _, err := db.ExecContext(ctx, "UPDATE warehouses SET name = name WHERE id = ?", secret); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "SELECT * FROM no_such_table WHERE id = ?", secret); err == nil {
		t.Fatal("want an error")
	}
	long := "SELECT 1 -- " + strings.Repeat("é", 9000) // 18,012 bytes
	if _, err := db.ExecContext(ctx, long); err != nil {
		t.Fatal(err)
	}
	rollBack := errors.New("roll back")
	if err := db.RunInTx(ctx, nil, func(context.Context, bun.Tx) error { return rollBack }); !errors.Is(err, rollBack) {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), "SELECT 2"); err != nil {
		t.Fatal(err)
	}
	unsampled, span := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample())).Tracer("test").Start(context.Background(), "unsampled")
	if _, err := db.ExecContext(unsampled, "SELECT 3"); err != nil {
		t.Fatal(err)
	}
	span.End()
	parent.End()

	spans := recorder.Ended()
	var names []string
	for _, s := range spans {
		names = append(names, s.Name())
	}
	if got, want := strings.Join(names, " "), "SELECT UPDATE SELECT SELECT BEGIN ROLLBACK parent"; got != want {
		t.Fatalf("spans %s, want %s", got, want)
	}
	for _, s := range spans[:6] { // the transaction's ROLLBACK too, not a child of its BEGIN
		checkStatementSpan(t, s, secret)
		if s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %q is not a child of the span it ran under", s.Name())
		}
	}
	if st := attr(spans[0], "db.query.text"); !strings.Contains(st, "?") || spans[0].Status().Code != codes.Unset {
		t.Errorf("a select with no row: statement %q, status %v; want a placeholder and no error", st, spans[0].Status())
	}
	if st := attr(spans[1], "db.query.text"); st != "UPDATE warehouses SET name = name WHERE id = ?" || attr(spans[1], "db.rows_affected") != "0" {
		t.Errorf("an update: %v, want its text and db.rows_affected 0", spans[1].Attributes())
	}
	if spans[2].Status().Code != codes.Error || len(spans[2].Events()) == 0 {
		t.Errorf("a failed statement: status %v, events %v; want the error", spans[2].Status(), spans[2].Events())
	}
	if st := attr(spans[3], "db.query.text"); len(st) > 16000 || !utf8.ValidString(st) || !strings.HasPrefix(long, st) {
		t.Errorf("a long statement: %d bytes, valid UTF-8 %v; want at most 16,000 bytes of its start", len(st), utf8.ValidString(st))
	}
}
