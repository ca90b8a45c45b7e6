package warehouse_test

import (
	"os"
	"testing"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// testDSN is this package's database: created and migrated before the
// tests, dropped after them.
var testDSN string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, &testDSN))
}

// The package's names for pgtest's helpers, as the kit's tests name them.

func scanQuery[T any](t testing.TB, db bun.IDB, query string, args ...any) T {
	t.Helper()
	return pgtest.ScanQuery[T](t, db, query, args...)
}

func shipNamer() func(string) string { return pgtest.Namer() }

func shipWarehouse(id, name string, active bool) domain.Warehouse {
	return pgtest.Warehouse(id, name, active)
}

func shipItem(org string, kind shipping.ItemKind, id, sku string) shipping.InventoryItem {
	return pgtest.Item(org, kind, id, sku)
}

func shipDB(t *testing.T, conns int) *bun.DB {
	t.Helper()
	return pgtest.Pool(t, testDSN, conns)
}

func shipWantStock(t *testing.T, db *bun.DB, table, warehouse, item string, onHand, reserved int64) {
	t.Helper()
	pgtest.WantStock(t, db, table, warehouse, item, onHand, reserved)
}

func shipRunSame[R any](t *testing.T, what string, calls []func() (R, error), fresh func(R) bool, key func(R) string) int {
	t.Helper()
	return pgtest.RunSame(t, what, calls, fresh, key)
}

func load(t *testing.T, f fixtureports.Fixture) fixtureports.Counts {
	t.Helper()
	return pgtest.Load(t, testDSN, f)
}
