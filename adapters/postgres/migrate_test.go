package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/migrations"
)

// TestMigrateConcurrently: several replicas migrating one empty database at
// once all succeed, and every migration is applied exactly once.
func TestMigrateConcurrently(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t, false)

	const replicas = 4
	var wg sync.WaitGroup
	applied := make([][]string, replicas)
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := pgtest.Open(t, dsn)
			m, err := postgres.NewMigrator(db, migrations.FS)
			if err != nil {
				errs[i] = err
				return
			}
			applied[i], errs[i] = m.Up(ctx)
		}()
	}
	wg.Wait()
	total := 0
	for i := range replicas {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		total += len(applied[i])
	}
	db := pgtest.Open(t, dsn)
	m := pgtest.NewMigrator(t, db, migrations.FS)
	states, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(states) {
		t.Fatalf("%d migrations applied across replicas, want each of %d exactly once", total, len(states))
	}
	if ok, err := m.AtLatest(ctx); err != nil || !ok {
		t.Fatalf("AtLatest = %v, %v after up", ok, err)
	}
	if err := (postgres.Readiness{DB: db, Migrator: m}).Ready(ctx); err != nil {
		t.Fatalf("not ready after up: %v", err)
	}

	// down rolls back exactly one migration; the schema is then behind.
	name1, err := m.Down(ctx)
	if err != nil || name1 == "" {
		t.Fatalf("down: %q %v", name1, err)
	}
	if ok, _ := m.AtLatest(ctx); ok {
		t.Fatal("AtLatest after down")
	}
	if err := (postgres.Readiness{DB: db, Migrator: m}).Ready(ctx); err == nil {
		t.Fatal("ready with a schema behind the binary")
	}
	again, err := m.Up(ctx)
	if err != nil || len(again) != 1 || again[0] != name1 {
		t.Fatalf("up after down applied %v (%v), want [%s]", again, err, name1)
	}
}
