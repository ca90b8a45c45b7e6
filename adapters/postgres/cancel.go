package postgres

import (
	"context"
	"database/sql/driver"
	"fmt"
)

// pgdriver bounds a round trip by its context's deadline only: a context
// that is cancelled (the client hung up) leaves the round trip waiting —
// behind a lock, until lock_timeout — and the request's work running after
// nobody waits for it. droppingConn watches the context of every round
// trip, and of every result being read, and closes the connection when the
// context ends first: the read in progress fails at once, database/sql
// drops the connection, and PostgreSQL, which checks its client's socket
// while a statement runs (client_connection_check_interval, set with the
// session's limits), ends the statement and rolls its transaction back.
// A closed connection costs a new one; only a request that ended early pays.

// watch closes c's connection if ctx ends before stop is called; stop
// reports whether it did not.
func (c droppingConn) watch(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil {
		return func() bool { return true }
	}
	return context.AfterFunc(ctx, func() { _ = c.Conn.Close() })
}

// ended is err of a round trip whose context ended: it wraps the context's
// error, so that a caller gone reads as context.Canceled (status 499) and a
// deadline as a timeout, not as a lost database.
func ended(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

func (c droppingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	stop := c.watch(ctx)
	defer stop()
	res, err := c.Conn.ExecContext(ctx, query, args)
	return res, ended(ctx, err)
}

func (c droppingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	stop := c.watch(ctx)
	rows, err := c.Conn.QueryContext(ctx, query, args)
	if err != nil {
		stop()
		return nil, ended(ctx, err)
	}
	return watchedRows{rows, stop}, nil
}

func (c droppingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	stop := c.watch(ctx)
	defer stop()
	tx, err := c.Conn.BeginTx(ctx, opts)
	return tx, ended(ctx, err)
}

// watchedRows are a result being read: the watch of its context lasts until
// it is closed (database/sql reads the rows after QueryContext returned).
type watchedRows struct {
	driver.Rows
	stop func() bool
}

func (r watchedRows) Close() error {
	defer r.stop()
	return r.Rows.Close()
}
