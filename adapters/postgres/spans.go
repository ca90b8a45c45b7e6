package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Every SQL statement the service runs inside a recorded span gets one
// client span of its own, from one of two places that write the same span:
// querySpans, the hook on the pool that sees bun's queries (BEGIN, COMMIT,
// ROLLBACK, the migrations), and runner.span, for the repositories'
// statements, which bypass bun (statements.go). The span is named by the
// operation (SELECT, INSERT, BEGIN, …): a repository's statement declares
// its own (statement, statements.go), bun's is its QueryEvent's; nothing
// parses SQL to name a span. (bun's own bunotel would not see the
// repositories' statements, which run on database/sql's prepared
// statements, not through bun's hooks.) It carries db.system.name,
// db.namespace, db.operation.name and db.query.text — the statement's text
// with its placeholders, never the argument values — and db.rows_affected
// when the driver reports it. Outside a recorded span (a request nobody
// samples, a command) no span is made.

// tracerName names the tracer of the statements' spans.
const tracerName = "github.com/acme3pl/fulfillment/adapters/postgres"

// maxStatement caps db.query.text: a statement longer than this (a bulk
// insert of a fixture, say) is cut, at a character boundary.
const maxStatement = 16000

// startStatementSpan starts a statement's span in ctx's trace, on the
// tracer provider of the span ctx carries, and returns the function that
// ends it with the statement's outcome: the rows it affected when n ≥ 0,
// and its error unless that says only that there was no row, or no
// transaction left to end. Under a span that is not recorded it starts
// none, and returns ctx and a function that does nothing.
func startStatementSpan(ctx context.Context, operation, statement, dbName string) (context.Context, func(err error, n int64)) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, func(error, int64) {}
	}
	if len(statement) > maxStatement {
		statement = strings.ToValidUTF8(statement[:maxStatement], "")
	}
	ctx, span := parent.TracerProvider().Tracer(tracerName).
		Start(ctx, operation, trace.WithSpanKind(trace.SpanKindClient))
	attrs := []attribute.KeyValue{
		semconv.DBSystemNamePostgreSQL,
		semconv.DBOperationName(operation),
		semconv.DBQueryText(statement),
	}
	if dbName != "" {
		attrs = append(attrs, semconv.DBNamespace(dbName))
	}
	span.SetAttributes(attrs...)
	return ctx, func(err error, n int64) {
		if n >= 0 {
			span.SetAttributes(attribute.Int64("db.rows_affected", n))
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) && !errors.Is(err, sql.ErrTxDone) {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// querySpans is the bun query hook that gives bun's statements their spans.
//
// A statement's span is kept with its event, not made the current span of
// the context bun carries on: bun keeps the context its BEGIN returned for
// the transaction's COMMIT or ROLLBACK, which would otherwise be children of
// the BEGIN, and, its span ended, not be recorded at all. Nothing makes a
// span below a statement.
type querySpans struct {
	dbName string
}

var _ bun.QueryHook = querySpans{}

// endKey is the key, in a statement's event's Stash, of the function that
// ends its span.
type endKey struct{}

// BeforeQuery starts the statement's span.
func (h querySpans) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	// Checked here too, so that an unsampled request does not pay for the
	// statement's text.
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	_, end := startStatementSpan(ctx, e.Operation(), unformatted(e), h.dbName)
	if e.Stash == nil {
		e.Stash = make(map[any]any, 1)
	}
	e.Stash[endKey{}] = end
	return ctx
}

// AfterQuery ends it.
func (querySpans) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	end, ok := e.Stash[endKey{}].(func(error, int64))
	if !ok {
		return
	}
	n := int64(-1)
	if e.Result != nil {
		if rows, err := e.Result.RowsAffected(); err == nil {
			n = rows
		}
	}
	end(e.Err, n)
}

// unformatted is the statement of a query event with placeholders where
// bun would format the values in: a query built by bun written again by a
// generator that leaves the values out, or the text given to bun with its
// own placeholders.
func unformatted(e *bun.QueryEvent) string {
	if e.IQuery != nil {
		if b, err := e.IQuery.AppendQuery(schema.NewNopQueryGen(), nil); err == nil {
			return string(b)
		}
	}
	return e.QueryTemplate
}
