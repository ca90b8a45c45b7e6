package postgres

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain"
)

// PreparedOnConnection runs the intake's claim, with its reads, the way a
// unit of work does (for a new order each time: d with order ID orderID) and
// returns how many server-side prepared statements of it the transaction's
// connection holds afterwards (pg_prepared_statements is per session).
func PreparedOnConnection(ctx context.Context, u *UnitOfWork, d domain.OrderDelivery, skus []string) (int, error) {
	prepared := u.stmts.get(ctx)
	var n int
	err := u.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, _, err := newRepositories(tx, prepared).Receipts.Claim(ctx, d, skus); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE statement = ?",
			claimOrderQuery.sql).Scan(&n)
	})
	return n, err
}

// TextArrays encodes ss and ns as the hot queries' array parameters do.
func TextArrays(ss []string, ns []int64) (string, string) { return pgTextArray(ss), pgInt64Array(ns) }

// DBErr is dbErr, for tests of raw statements.
var DBErr = dbErr

// ReadStatements are the texts of the statements NewPreparedRepositories
// prepares.
func ReadStatements() []string {
	out := make([]string, len(readQueries))
	for i, q := range readQueries {
		out[i] = q.sql
	}
	return out
}

// FillOf is the search_fill the repository computes for s.
func FillOf(s string) string {
	f, _ := fillOf(s)
	return string(f)
}

// FillPattern is the LIKE pattern on search_fill of a lower-cased term.
var FillPattern = fillPattern
