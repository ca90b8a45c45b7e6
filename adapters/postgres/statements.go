package postgres

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/ports"
)

// How the repositories run SQL: each statement is written out, with $1, $2,
// … placeholders, in the file of its aggregate's repository, and runs
// through a runner (query, exec) on the pool or on a unit of work's
// transaction, with its client span (spans.go).
//
// The runner runs each statement as a server-side prepared statement,
// parsed and planned once per connection rather than at every run, because
// planning was most of the database time of the invoice reads and the
// order intake (docs/benchmarks.md).

// A runner runs statements on a repository's handle: the pool, a
// transaction or a connection.
type runner struct {
	db    bun.IDB
	stmts *statements // the pool's prepared statements; nil: none (a repository built on a bare transaction)
	adHoc bool        // run unprepared: see adHocStatements
}

// adHocStatements returns r running its statements unprepared, planned for
// their values at each run: for a statement whose best plan depends on its
// values (the invoice search's, which depend on the term).
func (r runner) adHocStatements() runner {
	r.adHoc = true
	return r
}

// query runs sql and calls scan once per row.
func (r runner) query(ctx context.Context, text string, scan func(*sql.Rows) error, args ...any) (err error) {
	ctx, end := r.span(ctx, text)
	defer func() { end(err, -1) }()
	var rows *sql.Rows
	if stmt, done := r.prepared(ctx, text); stmt != nil { //nolint:sqlclosecheck // the pool's statement lives as long as the pool; done releases a transaction's copy
		defer done()
		rows, err = stmt.QueryContext(ctx, args...)
	} else {
		rows, err = r.handle().QueryContext(ctx, text, args...)
	}
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

// exec runs sql and returns the number of rows it affected.
func (r runner) exec(ctx context.Context, text string, args ...any) (n int64, err error) {
	ctx, end := r.span(ctx, text)
	defer func() { end(err, n) }()
	var res sql.Result
	if stmt, done := r.prepared(ctx, text); stmt != nil { //nolint:sqlclosecheck // the pool's statement lives as long as the pool; done releases a transaction's copy
		defer done()
		res, err = stmt.ExecContext(ctx, args...)
	} else {
		res, err = r.handle().ExecContext(ctx, text, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// handle is r's database/sql handle. Statements skip bun's formatter: the
// driver substitutes $n itself.
func (r runner) handle() interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
} {
	switch db := r.db.(type) {
	case bun.Tx:
		return db.Tx
	case bun.Conn:
		return db.Conn
	case *bun.DB:
		return db.DB
	}
	panic("postgres: a runner on an unknown bun.IDB")
}

// prepared returns sql's prepared statement on r's handle, or nil to run
// it unprepared, and the function to call when done with it. Inside a
// transaction it is the transaction's copy of the pool's statement
// (database/sql prepares it on the transaction's connection the first time
// that connection runs it); a statement the pool has not prepared yet runs
// unprepared, and the unit of work prepares it before its next transaction.
func (r runner) prepared(ctx context.Context, text string) (*sql.Stmt, func()) {
	if r.stmts == nil || r.adHoc {
		return nil, nil
	}
	switch db := r.db.(type) {
	case *bun.DB:
		return r.stmts.get(ctx, text), func() {}
	case bun.Tx:
		stmt := r.stmts.lookup(text)
		if stmt == nil {
			r.stmts.want(text)
			return nil, nil
		}
		txStmt := db.StmtContext(ctx, stmt)
		return txStmt, func() { _ = txStmt.Close() }
	}
	return nil, nil // database/sql has no per-connection copy of a statement
}

// span starts text's span (spans.go) and returns the function that ends it.
func (r runner) span(ctx context.Context, text string) (context.Context, func(error, int64)) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, func(error, int64) {} // and operation's parsing is not paid for
	}
	var dbName string
	if r.stmts != nil {
		dbName, _ = r.stmts.dbName.Load().(string)
	}
	return startStatementSpan(ctx, operation(text), text, dbName)
}

// statements are the prepared statements of one pool, keyed by their text.
// A statement is prepared on the pool the first time it runs there, or,
// when it first runs inside a transaction, before the unit of work's next
// transaction begins: preparing takes a connection of the pool, and a
// transaction holding one while it waits for another could starve the pool.
// database/sql then prepares each on every connection it runs on, and keeps
// it for the connection's life. No goroutine ever waits for another one's
// preparing: it runs its statement unprepared meanwhile.
type statements struct {
	db     *bun.DB
	dbName atomic.Value // db.name of the spans (a string), once known

	ready     sync.Map   // SQL text → *sql.Stmt
	preparing sync.Mutex // held while preparing, only by TryLock

	mu     sync.Mutex // guards wanted; never held while waiting for the database
	wanted map[string]bool
}

func newStatements(db *bun.DB) *statements {
	s := &statements{db: db, wanted: map[string]bool{}}
	s.dbName.Store("")
	return s
}

// lookup returns text's statement, or nil when it is not prepared.
func (s *statements) lookup(text string) *sql.Stmt {
	if stmt, ok := s.ready.Load(text); ok {
		return stmt.(*sql.Stmt)
	}
	return nil
}

// get returns text's statement, preparing it when needed. It returns nil
// when another goroutine is preparing right now, or preparing failed (the
// database is away): text then runs unprepared, and a later call tries
// again.
func (s *statements) get(ctx context.Context, text string) *sql.Stmt {
	if stmt := s.lookup(text); stmt != nil {
		return stmt
	}
	if !s.preparing.TryLock() {
		return nil
	}
	defer s.preparing.Unlock()
	return s.prepare(ctx, text)
}

// want notes a statement to prepare before the next transaction.
func (s *statements) want(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wanted[text] = true
}

// prepareWanted prepares the statements that ran unprepared in a
// transaction. The unit of work calls it before it begins one.
func (s *statements) prepareWanted(ctx context.Context) {
	s.mu.Lock()
	todo := make([]string, 0, len(s.wanted))
	for text := range s.wanted {
		todo = append(todo, text)
	}
	s.mu.Unlock()
	if s.dbName.Load() != "" && len(todo) == 0 || !s.preparing.TryLock() {
		return
	}
	defer s.preparing.Unlock()
	s.loadDBName(ctx)
	for _, text := range todo {
		if s.prepare(ctx, text) == nil {
			return
		}
		s.mu.Lock()
		delete(s.wanted, text)
		s.mu.Unlock()
	}
}

// prepare prepares text on the pool; the caller holds s.preparing.
func (s *statements) prepare(ctx context.Context, text string) *sql.Stmt {
	if stmt := s.lookup(text); stmt != nil {
		return stmt
	}
	s.loadDBName(ctx)
	stmt, err := s.db.DB.PrepareContext(ctx, text)
	if err != nil {
		return nil
	}
	s.ready.Store(text, stmt)
	return stmt
}

func (s *statements) loadDBName(ctx context.Context) {
	if s.dbName.Load() != "" {
		return
	}
	var name string
	if err := s.db.DB.QueryRowContext(ctx, "SELECT current_database()").Scan(&name); err == nil {
		s.dbName.Store(name)
	}
}

// operation is a statement's SQL command, the span's name: its first word,
// or, after WITH, the first command outside the parentheses of its
// common table expressions.
func operation(text string) string {
	depth, first := 0, true
	for _, f := range strings.FieldsFunc(text, func(c rune) bool { return c == ' ' || c == '\n' || c == '\t' || c == ',' }) {
		trimmed := strings.TrimLeft(f, "(")
		depth += len(f) - len(trimmed) // parentheses before the word enclose it
		word := strings.ToUpper(strings.TrimRight(trimmed, "()"))
		if depth == 0 && (first && word != "WITH" || !first && isCommand(word)) {
			return word
		}
		first = false
		depth += strings.Count(trimmed, "(") - strings.Count(trimmed, ")")
	}
	return "SQL"
}

func isCommand(word string) bool {
	switch word {
	case "SELECT", "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}

// pgArray passes a slice ([]string, []int64) as one array parameter, in
// the literal pgdialect writes into bun's queries, less the SQL string
// quotes around it (database/sql sends a parameter as it is).
func pgArray[T string | int64](v []T) string {
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

var arrayGen = schema.NewQueryGen(pgdialect.New())

// trimPage cuts the extra row a list query reads (LIMIT take+1) and reports
// whether it was there: whether more records follow the page.
func trimPage[T any](rows []T, page ports.Page) ([]T, bool) {
	if len(rows) > page.Take {
		return rows[:page.Take], true
	}
	return rows, false
}
