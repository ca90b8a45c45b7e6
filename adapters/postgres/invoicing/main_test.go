package invoicing_test

import (
	"io/fs"
	"os"
	"testing"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// testDSN is this package's database: created and migrated before the
// tests, dropped after them. Tests that need isolation use their own
// organization IDs.
var testDSN string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, &testDSN))
}

// The package's names for the helpers of the kit's tests.

func scanQuery[T any](t testing.TB, db bun.IDB, query string, args ...any) T {
	t.Helper()
	return pgtest.ScanQuery[T](t, db, query, args...)
}

func newMigrator(t *testing.T, db *bun.DB, fsys fs.FS, opts ...postgres.MigrateOptions) *postgres.Migrator {
	t.Helper()
	m, err := postgres.NewMigrator(db, fsys, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
