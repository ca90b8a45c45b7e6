package warehouse_test

import (
	"os"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// testDSN is this package's database: created and migrated before the
// tests, dropped after them.
var testDSN string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, &testDSN))
}
