package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"
)

// A hotQuery is a statement of the order intake's hot path written once with
// $n placeholders, so that it can run as a server-side prepared statement:
// parsed and planned once per connection instead of once per delivery, as
// bun's client-side formatted queries are. Arrays travel as one text
// parameter each (pgTextArray, pgInt64Array), so that one statement serves
// any number of lines.
type hotQuery struct {
	operation string // the span's name and db.operation: SELECT, INSERT, UPDATE
	sql       string
}

// preparedQueries are the statements a unit of work prepares: those of one
// order intake. The others run through runner as one statement formatted by
// the driver.
var preparedQueries = []*hotQuery{
	&claimOrderQuery, &finishReceiptQuery, &acceptOrderQuery,
}

// statements holds the prepared statements of one *bun.DB, made once, on
// first use, by the unit of work (outside any transaction: preparing takes a
// connection of the pool, and a transaction holding one while waiting for
// another could starve the pool). database/sql then prepares each statement
// once per connection it runs on and keeps it for the connection's life.
type statements struct {
	db      *bun.DB
	queries []*hotQuery // the set to prepare

	mu    sync.Mutex                  // held while preparing
	ready atomic.Pointer[preparedSet] // nil until prepared
}

type preparedSet struct {
	byQuery map[*hotQuery]*sql.Stmt
	dbName  string // db.name of the spans
}

func newStatements(db *bun.DB, queries []*hotQuery) *statements {
	return &statements{db: db, queries: queries}
}

// get returns the prepared set, preparing it when needed. It returns nil
// when another goroutine is preparing right now or preparing failed (the
// database is away), and on a nil *statements: the caller's queries then
// run unprepared, and the next call tries again.
func (s *statements) get(ctx context.Context) *preparedSet {
	if s == nil {
		return nil
	}
	if p := s.ready.Load(); p != nil {
		return p
	}
	if !s.mu.TryLock() {
		return nil
	}
	defer s.mu.Unlock()
	if p := s.ready.Load(); p != nil {
		return p
	}
	p := &preparedSet{byQuery: make(map[*hotQuery]*sql.Stmt, len(s.queries))}
	if err := s.db.DB.QueryRowContext(ctx, "SELECT current_database()").Scan(&p.dbName); err != nil {
		return nil
	}
	for _, q := range s.queries {
		stmt, err := s.db.DB.PrepareContext(ctx, q.sql) //nolint:sqlclosecheck // kept open for the DB's life: the point of preparing
		if err != nil {
			for _, st := range p.byQuery {
				_ = st.Close()
			}
			return nil
		}
		p.byQuery[q] = stmt
	}
	s.ready.Store(p)
	return p
}

// runner runs hotQuery statements on a repository's handle — the pool, a
// transaction or a connection — prepared when the unit of work has prepared
// them, else formatted by the driver. Either way each statement gets its
// client span, the same as bun's queries get (spans.go).
type runner struct {
	db       bun.IDB
	prepared *preparedSet // nil: unprepared
}

// query runs q and calls scan once per row.
func (r runner) query(ctx context.Context, q *hotQuery, scan func(*sql.Rows) error, args ...any) (err error) {
	ctx, end := r.span(ctx, q)
	defer func() { end(err, -1) }()
	stmt, done := r.bind(ctx, q)
	defer done()
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// exec runs q and returns the number of rows it affected.
func (r runner) exec(ctx context.Context, q *hotQuery, args ...any) (n int64, err error) {
	ctx, end := r.span(ctx, q)
	defer func() { end(err, n) }()
	stmt, done := r.bind(ctx, q)
	defer done()
	res, err := stmt.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// boundQuery is a statement ready to run on one handle: *sql.Stmt, or
// unprepared.
type boundQuery interface {
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
}

// unprepared runs a statement's text on a database/sql handle, skipping
// bun's formatter: the driver substitutes $n itself.
type unprepared struct {
	db interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	}
	sql string
}

func (u unprepared) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return u.db.QueryContext(ctx, u.sql, args...)
}

func (u unprepared) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return u.db.ExecContext(ctx, u.sql, args...)
}

// bind returns q on r's handle — its prepared statement when there is one
// (the transaction's copy inside a transaction), else unprepared — and the
// function to call when done with it.
func (r runner) bind(ctx context.Context, q *hotQuery) (boundQuery, func()) {
	var stmt *sql.Stmt
	if r.prepared != nil {
		stmt = r.prepared.byQuery[q]
	}
	switch db := r.db.(type) {
	case bun.Tx:
		if stmt == nil {
			return unprepared{db: db.Tx, sql: q.sql}, func() {}
		}
		// The transaction's copy: prepared on its connection the first
		// time that connection runs it, reused afterwards.
		txStmt := db.StmtContext(ctx, stmt)
		return txStmt, func() { _ = txStmt.Close() }
	case *bun.DB:
		if stmt == nil {
			return unprepared{db: db.DB, sql: q.sql}, func() {}
		}
		return stmt, func() {}
	case bun.Conn:
		// database/sql has no per-connection copy of a statement.
		return unprepared{db: db.Conn, sql: q.sql}, func() {}
	}
	panic(fmt.Sprintf("postgres: unexpected bun.IDB %T", r.db))
}

// span starts q's span (spans.go) and returns the function that ends it.
func (r runner) span(ctx context.Context, q *hotQuery) (context.Context, func(error, int64)) {
	var dbName string
	if r.prepared != nil {
		dbName = r.prepared.dbName
	}
	return startStatementSpan(ctx, q.operation, q.sql, dbName)
}

// pgTextArray and pgInt64Array pass a slice as one array parameter of a
// hot query. They write the literal that pgdialect.Array writes into bun's
// queries (query.go's pgArray) — one encoder of arrays for both paths — less
// the SQL string quotes around it: database/sql sends a parameter as it is.
func pgTextArray(ss []string) string { return arrayParam(ss) }
func pgInt64Array(ns []int64) string { return arrayParam(ns) }

// arrayGen formats pgdialect's array literals.
var arrayGen = schema.NewQueryGen(pgdialect.New())

func arrayParam[T string | int64](v []T) string {
	if v == nil {
		v = []T{} // pgdialect writes a nil slice as NULL
	}
	// The appenders of []string and []int64 cannot fail; the result is the
	// quoted SQL literal '{…}', in which a quote is doubled. (pgdialect
	// drops NUL characters: no value passed here holds one — IDs are
	// checked, and the intake refuses a NUL in a SKU.)
	lit, _ := pgdialect.Array(v).AppendQuery(arrayGen, nil)
	return strings.ReplaceAll(string(lit[1:len(lit)-1]), "''", "'")
}
