package benchdb

import (
	"context"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// Anew makes an empty database, again and again, and Migrate migrates it.
func TestAnewAndMigrate(t *testing.T) {
	ctx := context.Background()
	admin, err := postgres.Open(postgres.Options{DSN: pgtest.AdminURL(), MaxOpenConns: 1})
	if err != nil {
		t.Fatalf("no database server (start one: eval \"$(scripts/pg.sh)\"): %v", err)
	}
	defer func() { _ = admin.Close() }()
	const name = "fulfillment_benchdb_test"
	t.Cleanup(func() { _ = pgtest.Drop(context.Background(), pgtest.AdminURL(), name) })
	for range 2 {
		dsn, err := Anew(ctx, admin, pgtest.AdminURL(), name, "")
		if err != nil {
			t.Fatal(err)
		}
		db := pgtest.Open(t, dsn)
		var got string
		if err := db.QueryRowContext(ctx, "SELECT current_database()").Scan(&got); err != nil || got != name {
			t.Fatalf("connected to %q (%v), want %s", got, err, name)
		}
		if err := Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		_ = db.Close()
	}
}
