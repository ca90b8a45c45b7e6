package operator_test

import (
	"context"
	"os"
	"testing"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// testDSN is this package's database: created and migrated before the
// tests, dropped after them.
var testDSN string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, &testDSN))
}

// countRows is the count q reads.
func countRows(t *testing.T, db *bun.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.NewRaw(q, args...).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}
