package pgtest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acme3pl/fulfillment/adapters/postgres"
)

// A Recorder keeps the statements a database sends, with their arguments,
// prepared or not: it sits between database/sql and pgdriver.
type Recorder struct {
	mu   sync.Mutex
	sent []Statement
}

// A Statement is one statement sent: its text, with $n placeholders, and
// the values of its parameters.
type Statement struct {
	SQL  string
	Args []any
}

func (r *Recorder) add(sql string, args []driver.NamedValue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Statement{SQL: sql}
	for _, a := range args {
		s.Args = append(s.Args, a.Value)
	}
	r.sent = append(r.sent, s)
}

// Take returns the statements sent since the last Take.
func (r *Recorder) Take() []Statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sent
	r.sent = nil
	return s
}

// OpenRecording opens a pool of dsn whose statements rec records (without
// postgres.Open's settings).
func OpenRecording(dsn string) (db *bun.DB, rec *Recorder) {
	rec = &Recorder{}
	return bun.NewDB(sql.OpenDB(recordingConnector{pgdriver.NewConnector(pgdriver.WithDSN(dsn)), rec}), pgdialect.New()), rec
}

type recordingConnector struct {
	driver.Connector
	rec *Recorder
}

func (c recordingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	pgconn, err := postgres.ConnectPG(ctx, c.Connector)
	if err != nil {
		return nil, err
	}
	return recordingConn{pgconn, c.rec}, nil
}

// recordingConn is a pgdriver connection that records what it sends.
type recordingConn struct {
	*pgdriver.Conn
	rec *Recorder
}

func (c recordingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.rec.add(query, args)
	return c.Conn.QueryContext(ctx, query, args)
}

func (c recordingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.rec.add(query, args)
	return c.Conn.ExecContext(ctx, query, args)
}

func (c recordingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	stmt, err := c.Conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return recordingStmt{stmt, query, c.rec}, nil
}

type recordingStmt struct {
	driver.Stmt
	sql string
	rec *Recorder
}

func (s recordingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.rec.add(s.sql, args)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (s recordingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.rec.add(s.sql, args)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}
