package invoicing_test

import (
	"os"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// testDSN is this package's database: created and migrated before the
// tests, dropped after them. Tests that need isolation use their own
// organization IDs.
var testDSN string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, &testDSN))
}
