package access_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// testDSN is this package's database: created and migrated before the
// tests, dropped after them.
var testDSN string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, &testDSN))
}

func load(t *testing.T, f fixtureports.Fixture) fixtureports.Counts {
	t.Helper()
	return pgtest.Load(t, testDSN, f)
}

// orgID returns an organization ID unique per call, so that tests sharing
// the package database never see each other.
func orgID(t *testing.T) string {
	t.Helper()
	var b [5]byte
	_, _ = rand.Read(b[:])
	return "org_access_" + hex.EncodeToString(b[:])
}

// seedOrg stores the organization org.
func seedOrg(t *testing.T, org string) {
	t.Helper()
	load(t, fixtureports.Fixture{Organizations: []domain.Organization{{ID: org, Name: "Access"}}})
}
