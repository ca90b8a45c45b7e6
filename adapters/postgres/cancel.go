package postgres

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"
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
//
// A round trip without a deadline (database/sql's COMMIT and ROLLBACK, a
// caller's context without one) is bounded by IOTimeout instead, as
// pgdriver's own read timeout did before it was turned off (db.go).

// watch closes c's connection if ctx ends before stop is called; stop
// reports whether it did not.
func (c droppingConn) watch(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil {
		return func() bool { return true }
	}
	return context.AfterFunc(ctx, func() { _ = c.Close() })
}

// timed closes c's connection if the call takes longer than IOTimeout
// when ctx has no deadline of its own; the returned function ends the bound.
func (c droppingConn) timed(ctx context.Context) (stop func() bool) {
	if _, ok := ctx.Deadline(); ok || c.io <= 0 {
		return func() bool { return true }
	}
	return time.AfterFunc(c.io, func() { _ = c.Close() }).Stop
}

// call runs one round trip under ctx's watch and, without a deadline,
// IOTimeout.
func (c droppingConn) call(ctx context.Context, roundTrip func() error) error {
	stopWatch, stopTimer := c.watch(ctx), c.timed(ctx)
	defer stopWatch()
	defer stopTimer()
	return ended(ctx, roundTrip())
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

func (c droppingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (res driver.Result, err error) {
	err = c.call(ctx, func() error { res, err = c.Conn.ExecContext(ctx, query, args); return err })
	return res, err
}

// query starts a query by send and hands back its rows, the context
// watched until they are closed: database/sql reads them after
// QueryContext returned.
func (c droppingConn) query(ctx context.Context, send func() (driver.Rows, error)) (driver.Rows, error) {
	stopWatch, stopTimer := c.watch(ctx), c.timed(ctx)
	rows, err := send()
	stopTimer()
	if err != nil {
		stopWatch()
		return nil, ended(ctx, err)
	}
	return watchedRows{rows, stopWatch}, nil
}

func (c droppingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.query(ctx, func() (driver.Rows, error) { return c.Conn.QueryContext(ctx, query, args) })
}

func (c droppingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (tx driver.Tx, err error) {
	if err = c.call(ctx, func() error { tx, err = c.Conn.BeginTx(ctx, opts); return err }); err != nil {
		return nil, err
	}
	return boundedTx{tx, c}, nil
}

// watchedRows are a result being read, its context watched until it is
// closed.
type watchedRows struct {
	driver.Rows
	stop func() bool
}

func (r watchedRows) Close() error {
	defer r.stop()
	return r.Rows.Close()
}

// boundedTx ends its COMMIT or ROLLBACK, which database/sql sends without
// a context, at the connection's IOTimeout: a COMMIT sent into a network
// partition would otherwise wait as long as TCP does.
type boundedTx struct {
	driver.Tx
	cn droppingConn
}

func (t boundedTx) Commit() error {
	return t.cn.call(context.Background(), t.Tx.Commit)
}

func (t boundedTx) Rollback() error {
	return t.cn.call(context.Background(), t.Tx.Rollback)
}
