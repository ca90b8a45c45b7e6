package postgres

import (
	"context"

	"github.com/uptrace/bun"
)

// PreparedOnConnection runs fn on u's repositories the way a unit of work
// does (the intake's claim, with its reads) and returns how many
// server-side prepared statements of text the transaction's connection
// holds afterwards (pg_prepared_statements is per session).
func PreparedOnConnection[R any](ctx context.Context, u *UnitOfWork[R], text string, fn func(context.Context, R) error) (int, error) {
	t := u.t
	t.stmts.prepareWanted(ctx)
	var n int
	err := t.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		h := Handle{run: runner{db: tx, stmts: t.stmts}, events: &txEvents{inTx: true}, billing: t.billing}
		if err := fn(ctx, u.bind(h)); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE statement = ?",
			text).Scan(&n)
	})
	return n, err
}

// UnpreparedRepositories builds the repositories bind makes on db with
// statements that run unprepared, planned at each run.
func UnpreparedRepositories[R any](db *bun.DB, bind func(Handle) R) R {
	return bind(Handle{run: runner{db: db}, events: &txEvents{}})
}

// TextArrays encodes ss and ns as array parameters.
func TextArrays(ss []string, ns []int64) (string, string) { return pgArray(ss), pgArray(ns) }

// KitStatements are the kit's statements by name (allStatements).
func KitStatements() map[string]Statement { return allStatements() }

// Describe is s's command and text.
func Describe(s Statement) (command, text string) { return s.command(), s.sql() }

// Operation is operation: the command a statement's text runs.
var Operation = operation
