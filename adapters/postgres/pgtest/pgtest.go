// Package pgtest gives a test package a PostgreSQL database of its own: made
// fresh on the server named by TEST_DATABASE_URL, migrated, and dropped when
// the package's tests end. There is no skip: without a server the tests
// fail and say how to start one.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/migrations"
)

// DefaultAdminURL is used when TEST_DATABASE_URL is not set.
const DefaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL is the DSN of a database on which the tests may create and drop
// databases.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultAdminURL
}

// Main creates a database, sets *dsn to it, runs m and drops the database.
// Use it from TestMain: os.Exit(pgtest.Main(m, &dsn)).
func Main(m *testing.M, dsn *string) int {
	name, url, err := Create(context.Background(), AdminURL(), true)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	*dsn = url
	code := m.Run()
	if err := CheckChargeDays(context.Background(), url); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		code = 1
	}
	if err := Drop(context.Background(), AdminURL(), name); err != nil {
		fmt.Fprintf(os.Stderr, "drop test database %s: %v\n", name, err)
	}
	return code
}

// Create makes a database with a random name on the admin server, migrated
// when migrate is true, and returns its name and DSN.
func Create(ctx context.Context, adminURL string, migrate bool) (name, dsn string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	admin, err := postgres.Open(postgres.Options{DSN: adminURL, MaxOpenConns: 2})
	if err != nil {
		return "", "", err
	}
	defer func() { _ = admin.Close() }()
	if err := admin.PingContext(ctx); err != nil {
		return "", "", fmt.Errorf("PostgreSQL is not reachable at %s (%v).\n"+
			"Start it and point the tests at it with:  eval \"$(scripts/pg.sh)\"  (or run: make test)", redact(adminURL), err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name = "fulfillment_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", "", fmt.Errorf("create database %s: %w", name, err)
	}
	dsn = withDatabase(adminURL, name)
	if migrate {
		db, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: 2})
		if err != nil {
			return "", "", err
		}
		defer func() { _ = db.Close() }()
		mig, err := postgres.NewMigrator(db, migrations.FS)
		if err != nil {
			return "", "", err
		}
		if _, err := mig.Up(ctx); err != nil {
			return "", "", fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return name, dsn, nil
}

// chargeDaysDiffSQL lists (organization, UTC day, line) whose running
// totals in billing_charge_days differ from the charges'.
const chargeDaysDiffSQL = `WITH kept AS (
	SELECT organization_id, day, fee, title, description, for_period, warehouse_id, unit_cost, divisor,
		sum(quantity_milli) AS q, sum(facts) AS k
	FROM billing_charge_days GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 HAVING sum(facts) <> 0),
charged AS (
	SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date AS day, fee, title, description, for_period, warehouse_id,
		unit_cost, divisor, sum(quantity_milli) AS q, count(*) AS k
	FROM billing_charges GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9)
SELECT format('%s', x) FROM ((TABLE kept EXCEPT TABLE charged) UNION ALL (TABLE charged EXCEPT TABLE kept)) x LIMIT 5`

// CheckChargeDays says whether the running totals of the charges
// (billing_charge_days, kept by triggers) agree with the charges of the
// database at dsn: Main checks its package's database after the tests,
// whatever paths they took to insert or delete charges.
func CheckChargeDays(ctx context.Context, dsn string) error {
	db, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: 1})
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	var diffs []string
	if err := db.NewRaw(chargeDaysDiffSQL).Scan(ctx, &diffs); err != nil {
		return fmt.Errorf("compare billing_charge_days with the charges: %w", err)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("billing_charge_days disagrees with billing_charges (organization, day, line, quantity, facts): %v", diffs)
	}
	return nil
}

// Database creates a database for one test (migrated when migrate is
// set), dropped when t ends, and returns its DSN.
func Database(t testing.TB, migrate bool) string {
	t.Helper()
	name, dsn, err := Create(context.Background(), AdminURL(), migrate)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Drop(context.Background(), AdminURL(), name) })
	return dsn
}

// Drop removes a test database, ending its sessions first.
func Drop(ctx context.Context, adminURL, name string) error {
	admin, err := postgres.Open(postgres.Options{DSN: adminURL, MaxOpenConns: 1})
	if err != nil {
		return err
	}
	defer func() { _ = admin.Close() }()
	_, err = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	return err
}

// Open returns a connection pool to dsn, closed when t ends.
func Open(t testing.TB, dsn string) *bun.DB {
	t.Helper()
	db, err := postgres.Open(postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// WaitForLockWaiters waits until at least n other sessions of db's
// database wait for a lock (pg_stat_activity.wait_event_type = 'Lock'),
// failing t after 15 s. Tests use it to know that a statement is blocked
// behind a lock, rather than sleeping and hoping.
func WaitForLockWaiters(t testing.TB, db *bun.DB, n int) {
	t.Helper()
	waitForSessions(t, db, "wait_event_type = 'Lock'", func(k int) bool { return k >= n },
		fmt.Sprintf("session(s) wait for a lock, want %d", n))
}

// WaitForNoLockWaiter waits until no other session of db's database
// waits for a lock, failing t after 15 s.
func WaitForNoLockWaiter(t testing.TB, db *bun.DB) {
	t.Helper()
	waitForSessions(t, db, "wait_event_type = 'Lock'", func(k int) bool { return k == 0 },
		"session(s) still wait for a lock, want none")
}

// WaitForNoOpenTransaction waits until no other session of db's database
// is idle in a transaction (pg_stat_activity.state), failing t after 15 s:
// a transaction that ended on the client's side has been rolled back on
// the server's.
func WaitForNoOpenTransaction(t testing.TB, db *bun.DB) {
	t.Helper()
	waitForSessions(t, db, "state LIKE 'idle in transaction%'", func(k int) bool { return k == 0 },
		"session(s) still idle in a transaction, want none")
}

// waitForSessions polls how many other sessions of db's database match
// cond (an SQL condition on pg_stat_activity) until done accepts the count,
// failing t after 15 s with the count and what.
func waitForSessions(t testing.TB, db *bun.DB, cond string, done func(int) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var n int
		err := db.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND `+cond).
			Scan(context.Background(), &n)
		if err != nil {
			t.Fatalf("read pg_stat_activity: %v", err)
		}
		if done(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 15s %d %s", n, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + name
	return u.String()
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "TEST_DATABASE_URL"
	}
	return strings.Replace(u.Redacted(), "xxxxx", "***", 1)
}
