package postgres

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"

	"github.com/acme3pl/fulfillment/ports"
)

// How the repositories run SQL: each statement is written out, with $1, $2,
// … placeholders, in the file of its aggregate's repository, and runs
// through a runner (query, exec) on the pool or on a unit of work's
// transaction, with its client span (spans.go).
//
// The runner skips bun's query builder and formatter: bun formats every
// value into the text, so PostgreSQL would plan each run anew, and
// planning was most of the database time of the invoice reads and the
// order intake (docs/benchmarks.md). It runs each statement as a
// server-side prepared statement instead, with database/sql's *sql.Stmt,
// which prepares it once on each connection it runs on and keeps it there.

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

// A statement is one SQL statement of a repository, written out with $1,
// $2, … placeholders and declared with its SQL command (sqlSelect,
// sqlInsert, sqlUpdate, sqlDelete: for a statement WITH common table
// expressions, the command after them), which names its span (spans.go):
// `const finishReceiptSQL sqlUpdate = "UPDATE order_receipts …"`.
type statement interface {
	command() string // SELECT, INSERT, UPDATE or DELETE
	sql() string     // the text
}

type (
	sqlSelect string
	sqlInsert string
	sqlUpdate string
	sqlDelete string
)

func (sqlSelect) command() string { return "SELECT" }
func (sqlInsert) command() string { return "INSERT" }
func (sqlUpdate) command() string { return "UPDATE" }
func (sqlDelete) command() string { return "DELETE" }

func (s sqlSelect) sql() string { return string(s) }
func (s sqlInsert) sql() string { return string(s) }
func (s sqlUpdate) sql() string { return string(s) }
func (s sqlDelete) sql() string { return string(s) }

// query runs s and calls scan once per row.
func (r runner) query(ctx context.Context, s statement, scan func(*sql.Rows) error, args ...any) (err error) {
	text := s.sql()
	ctx, end := r.span(ctx, s)
	defer func() { end(err, -1) }()
	rows, err := r.statement(ctx, text).QueryContext(ctx, args...)
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

// exec runs s and returns the number of rows it affected.
func (r runner) exec(ctx context.Context, s statement, args ...any) (n int64, err error) {
	text := s.sql()
	ctx, end := r.span(ctx, s)
	defer func() { end(err, n) }()
	res, err := r.statement(ctx, text).ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// statement is what runs text on r's handle: its prepared statement, or the
// text itself, unprepared.
func (r runner) statement(ctx context.Context, text string) interface {
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
} {
	if r.stmts != nil && !r.adHoc {
		switch db := r.db.(type) {
		case *bun.DB:
			if stmt := r.stmts.get(ctx, text); stmt != nil {
				return stmt
			}
		case bun.Tx:
			if stmt := r.stmts.inTx(text); stmt != nil {
				// database/sql closes the transaction's copy when it ends.
				return db.StmtContext(ctx, stmt)
			}
		}
	}
	// bun's own QueryContext would format the values into the text.
	switch db := r.db.(type) {
	case bun.Tx:
		return unprepared{db.Tx, text}
	case bun.Conn:
		return unprepared{db.Conn, text}
	case *bun.DB:
		return unprepared{db.DB, text}
	}
	panic("postgres: a runner on an unknown bun.IDB")
}

// unprepared runs text as it is, the driver sending the values apart.
type unprepared struct {
	db interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	}
	text string
}

func (u unprepared) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return u.db.QueryContext(ctx, u.text, args...)
}

func (u unprepared) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return u.db.ExecContext(ctx, u.text, args...)
}

// span starts s's span (spans.go), named by its declared command, and
// returns the function that ends it.
func (r runner) span(ctx context.Context, s statement) (context.Context, func(error, int64)) {
	var dbName string
	if r.stmts != nil {
		dbName = r.stmts.dbName
	}
	return startStatementSpan(ctx, s.command(), s.sql(), dbName)
}

// statements are the prepared statements of one pool, by their text, each
// prepared the first time it runs on the pool; database/sql has no such
// cache of its own. A statement whose first run is inside a transaction
// runs unprepared there and is prepared before the unit of work's next
// transaction: preparing takes a connection of the pool, and transactions
// holding theirs while they wait for another could starve it.
type statements struct {
	db     *sql.DB
	dbName string // db.namespace of the spans

	ready sync.Map // SQL text → *sql.Stmt

	mu      sync.Mutex
	pending map[string]bool // first run inside a transaction, not prepared yet
}

func newStatements(db *bun.DB) *statements {
	return &statements{db: db.DB, dbName: databaseOf(db.DB), pending: map[string]bool{}}
}

// get returns text's statement, preparing it when needed; nil when
// preparing failed (the database is away, or preparing took longer than
// prepareBudget): text then runs unprepared. Preparing takes the locks of
// the statement's tables: behind a table another session holds, a
// statement would otherwise wait for the lock twice, once to be prepared
// and once to run.
func (s *statements) get(ctx context.Context, text string) *sql.Stmt {
	if stmt, ok := s.ready.Load(text); ok {
		return stmt.(*sql.Stmt)
	}
	ctx, cancel := context.WithTimeout(ctx, prepareBudget)
	defer cancel()
	stmt, err := s.db.PrepareContext(ctx, text)
	if err != nil {
		return nil
	}
	if first, loaded := s.ready.LoadOrStore(text, stmt); loaded { // another goroutine prepared it meanwhile
		_ = stmt.Close() //nolint:sqlclosecheck // the duplicate, closed at once; the kept one lives as long as the pool
		return first.(*sql.Stmt)
	}
	return stmt
}

// inTx returns text's statement when the pool has it, or else notes it for
// prepareWanted and returns nil.
func (s *statements) inTx(text string) *sql.Stmt {
	if stmt, ok := s.ready.Load(text); ok {
		return stmt.(*sql.Stmt)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[text] = true
	return nil
}

// prepareWanted prepares the statements that ran unprepared in a
// transaction; the unit of work calls it before it begins one. It gives
// them prepareBudget in all and stops at the first that fails: behind a
// table another session holds (LOCK TABLE) each would wait up to
// lock_timeout in turn, before the transaction waits once more — a request
// would wait for the lock several times the bound it is promised. The rest
// are noted again and prepared before a later transaction.
func (s *statements) prepareWanted(ctx context.Context) {
	s.mu.Lock()
	todo := s.pending
	if len(todo) == 0 {
		s.mu.Unlock()
		return
	}
	s.pending = map[string]bool{}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, prepareBudget)
	defer cancel()
	failed := false
	for text := range todo {
		if !failed && s.get(ctx, text) == nil {
			failed = true
		}
		if failed {
			s.inTx(text) // noted again
		}
	}
}

// prepareBudget bounds preparing (get, prepareWanted): a statement is
// prepared in well under a millisecond when no lock is in the way.
const prepareBudget = 100 * time.Millisecond

// pgArray passes a slice ([]string, []int64) as one array parameter:
// database/sql passes only scalars and pgdialect.Array is no driver.Valuer,
// so the parameter is pgdialect's array literal, less the SQL string quotes
// it writes around it for bun's formatted queries (a quote inside doubled).
func pgArray[T string | int64](v []T) string {
	if v == nil {
		v = []T{} // pgdialect writes a nil slice as NULL
	}
	// The appenders of []string and []int64 cannot fail. (pgdialect drops
	// NUL characters: no value passed here holds one — IDs are checked, and
	// the intake refuses a NUL in a SKU.)
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

// The kit's part that the context packages (adapters/postgres/<context>)
// build their repositories with: a statement declared with its command, the
// runner of a handle, and the errors as the domain names them.

// Statement is a statement of a repository: an SQLSelect, SQLInsert,
// SQLUpdate or SQLDelete constant, written out with $1, $2, … placeholders.
type Statement = statement

// The commands a statement is declared with.
type (
	SQLSelect = sqlSelect
	SQLInsert = sqlInsert
	SQLUpdate = sqlUpdate
	SQLDelete = sqlDelete
)

// Runner runs a repository's statements on its handle (Handle.Runner):
// prepared on the pool or a unit of work's transaction.
type Runner = runner

// NewRunner runs statements on db unprepared (a repository built on a bare
// handle, outside a unit of work and its prepared statements).
func NewRunner(db bun.IDB) Runner { return runner{db: db} }

// Query runs s and calls scan once per row.
func (r runner) Query(ctx context.Context, s Statement, scan func(*sql.Rows) error, args ...any) error {
	return r.query(ctx, s, scan, args...)
}

// Exec runs s and returns how many rows it affected.
func (r runner) Exec(ctx context.Context, s Statement, args ...any) (int64, error) {
	return r.exec(ctx, s, args...)
}

// Array encodes v as an array parameter ($n::text[], $n::bigint[]).
func Array[T string | int64](v []T) string { return pgArray(v) }

// Lock runs a locking statement (an advisory lock's SELECT), whose rows
// it drops.
func (r runner) Lock(ctx context.Context, q Statement, args ...any) error {
	return dbErr(r.query(ctx, q, func(*sql.Rows) error { return nil }, args...))
}

// AdHoc returns r running its statements unprepared (adHocStatements).
func (r runner) AdHoc() Runner { return r.adHocStatements() }

// Pool is the pool r runs on, and false if r runs in a transaction or on
// a connection: a read that runs a transaction of its own (the CSV
// export's) begins it there.
func (r runner) Pool() (*bun.DB, bool) {
	pool, ok := r.db.(*bun.DB)
	return pool, ok
}

// InTx returns r running on tx, with r's prepared statements.
func (r runner) InTx(tx bun.IDB) Runner { return runner{db: tx, stmts: r.stmts} }
