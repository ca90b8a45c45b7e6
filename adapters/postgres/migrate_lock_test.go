package postgres_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
)

// lockFixture is a migration set of its own: 0001 makes a table the
// "intake" writes, 0002 adds a column to it, which needs an ACCESS
// EXCLUSIVE lock on the table, in a transaction (.tx.) or outside one.
func lockFixture(tx bool) (base, full fstest.MapFS) {
	base = fstest.MapFS{
		"0001_orders.tx.up.sql":   {Data: []byte("CREATE TABLE orders (id bigint PRIMARY KEY, note text);\n")},
		"0001_orders.tx.down.sql": {Data: []byte("DROP TABLE orders;\n")},
	}
	full = fstest.MapFS{}
	for k, v := range base {
		full[k] = v
	}
	suffix := ".up.sql"
	if tx {
		suffix = ".tx.up.sql"
	}
	full["0002_orders_channel"+suffix] = &fstest.MapFile{Data: []byte("ALTER TABLE orders ADD COLUMN IF NOT EXISTS channel text;\n")}
	return base, full
}

// lockTest is a fresh database migrated to the fixture's 0001, a session
// holding a lock on orders that conflicts with 0002's, and an intake-like
// writer inserting orders from its own pool.
type lockTest struct {
	db     *bun.DB
	holder bun.Tx
	full   fstest.MapFS

	stopWriter func() (inserts int, slowest time.Duration, err error)
}

func newLockTest(t *testing.T, tx bool) *lockTest {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.Database(t, false)
	base, full := lockFixture(tx)
	db := pgtest.Open(t, dsn)
	m := pgtest.NewMigrator(t, db, base)
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	lt := &lockTest{db: db, full: full}

	// A long reader: ACCESS SHARE on orders until it commits. Writers
	// (ROW EXCLUSIVE) pass beside it; ADD COLUMN (ACCESS EXCLUSIVE) waits.
	var err error
	if lt.holder, err = db.BeginTx(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lt.holder.Rollback() })
	var n int
	if err := lt.holder.NewRaw("SELECT count(*) FROM orders").Scan(ctx, &n); err != nil {
		t.Fatal(err)
	}

	// The writer: one insert after another, each bounded by the
	// storefront's 5 s, the slowest kept.
	wdb := pgtest.Open(t, dsn)
	var (
		stop    atomic.Bool
		wg      sync.WaitGroup
		inserts int
		slowest time.Duration
		werr    error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for id := int64(1); !stop.Load(); id++ {
			ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
			start := time.Now()
			_, err := wdb.NewRaw("INSERT INTO orders (id, note) VALUES (?, 'intake')", id).Exec(ictx)
			cancel()
			if err != nil {
				werr = err
				return
			}
			inserts++
			slowest = max(slowest, time.Since(start))
			time.Sleep(10 * time.Millisecond)
		}
	}()
	lt.stopWriter = func() (int, time.Duration, error) {
		stop.Store(true)
		wg.Wait()
		return inserts, slowest, werr
	}
	return lt
}

func (lt *lockTest) hasChannel(t *testing.T) bool {
	t.Helper()
	var n int
	err := lt.db.NewRaw(`SELECT count(*) FROM information_schema.columns
		WHERE table_name = 'orders' AND column_name = 'channel'`).Scan(context.Background(), &n)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestMigrateLockTimeoutRetries: a migration whose lock is held by another
// session gives up within its lock_timeout instead of queueing the intake's
// writes behind it, is tried again after each pause, and is applied once
// the lock is released; the intake-like writer keeps answering quickly
// throughout. Both kinds of migration file: in a transaction and outside.
func TestMigrateLockTimeoutRetries(t *testing.T) {
	const (
		lockTimeout = 300 * time.Millisecond
		backoff     = 200 * time.Millisecond
		releaseAt   = 4 // the holder commits once this many attempts gave up
	)
	for _, tx := range []bool{true, false} {
		name := "outside a transaction"
		if tx {
			name = "in a transaction"
		}
		t.Run(name, func(t *testing.T) {
			// Bounded: a migration that waited for the lock without giving up
			// would wait for ever (the holder commits only after retries).
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			lt := newLockTest(t, tx)
			m := pgtest.NewMigrator(t, lt.db, lt.full,
				postgres.MigrateOptions{LockTimeout: lockTimeout, LockRetries: 6, RetryBackoff: backoff})
			var (
				mu      sync.Mutex
				retries []postgres.MigrationRetry
				gaveUp  []time.Duration // since Up started, when each attempt gave up
			)
			start := time.Now()
			m.ReportRetries(func(r postgres.MigrationRetry) {
				mu.Lock()
				defer mu.Unlock()
				retries = append(retries, r)
				gaveUp = append(gaveUp, time.Since(start))
				if len(retries) == releaseAt {
					// Released during this pause: the next attempt gets the lock.
					if err := lt.holder.Commit(); err != nil {
						t.Errorf("release the lock: %v", err)
					}
				}
			})
			applied, err := m.Up(ctx)
			took := time.Since(start)
			inserts, slowest, werr := lt.stopWriter()
			if err != nil {
				t.Fatalf("Up: %v (after %d retries)", err, len(retries))
			}
			if len(applied) != 1 || applied[0] != "0002_orders_channel" {
				t.Fatalf("applied %v, want [0002_orders_channel]", applied)
			}
			if !lt.hasChannel(t) {
				t.Fatal("orders.channel missing after Up")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(retries) != releaseAt {
				t.Fatalf("%d retries reported, want %d (the lock was released during the pause after attempt %d)", len(retries), releaseAt, releaseAt)
			}
			// Attempt k gives up lockTimeout after it starts: after k waits and
			// the pauses before it (backoff, doubling). Scheduling on a shared
			// machine adds a little; a wait that did not give up adds seconds.
			var expect time.Duration
			pause := backoff
			for k, r := range retries {
				if r.Migration != "0002_orders_channel" || r.Attempt != k+1 || r.Attempts != 7 || r.Wait != pause {
					t.Errorf("retry %d = %+v, want 0002_orders_channel, attempt %d of 7, wait %s", k, r, k+1, pause)
				}
				expect += lockTimeout
				if gaveUp[k] < expect || gaveUp[k] > expect+time.Duration(k+1)*400*time.Millisecond {
					t.Errorf("attempt %d gave up %s after Up began, want about %s", k+1, gaveUp[k].Round(time.Millisecond), expect)
				}
				expect += pause
				pause *= 2
			}
			if werr != nil {
				t.Fatalf("the writer failed: %v", werr)
			}
			// Without lock_timeout the first attempt would have queued every
			// insert behind it for the whole time the lock was held (> 2.5 s).
			if inserts < 20 || slowest > lockTimeout+time.Second {
				t.Fatalf("writer: %d inserts in %s, slowest %s; want ≥ 20, each within %s",
					inserts, took.Round(time.Millisecond), slowest.Round(time.Millisecond), lockTimeout+time.Second)
			}
			t.Logf("applied after %d retries in %s; writer: %d inserts, slowest %s",
				len(retries), took.Round(time.Millisecond), inserts, slowest.Round(time.Millisecond))
		})
	}
}

// TestMigrateLockRetriesRunOut: when the lock stays held through every
// retry, Up fails with a timeout naming the migration, leaves it pending,
// and a later Up (the lock released) applies it.
func TestMigrateLockRetriesRunOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lt := newLockTest(t, true)
	m := pgtest.NewMigrator(t, lt.db, lt.full,
		postgres.MigrateOptions{LockTimeout: 200 * time.Millisecond, LockRetries: 2, RetryBackoff: 100 * time.Millisecond})
	n := 0
	m.ReportRetries(func(postgres.MigrationRetry) { n++ })
	start := time.Now()
	applied, err := m.Up(ctx)
	took := time.Since(start)
	if !errors.Is(err, domain.ErrTimeout) {
		t.Fatalf("Up = %v, want a timeout", err)
	}
	if len(applied) != 0 || n != 2 {
		t.Fatalf("applied %v after %d retries, want none after 2", applied, n)
	}
	// Three waits of 200 ms and pauses of 100 and 200 ms: 0.9 s.
	if took < 900*time.Millisecond || took > 3*time.Second {
		t.Fatalf("Up gave up after %s, want about 0.9 s", took.Round(time.Millisecond))
	}
	if lt.hasChannel(t) {
		t.Fatal("orders.channel exists although 0002 failed")
	}
	if _, _, werr := lt.stopWriter(); werr != nil {
		t.Fatalf("the writer failed: %v", werr)
	}
	if err := lt.holder.Commit(); err != nil {
		t.Fatal(err)
	}
	applied, err = m.Up(ctx)
	if err != nil || len(applied) != 1 || applied[0] != "0002_orders_channel" {
		t.Fatalf("Up after the release applied %v (%v), want [0002_orders_channel]", applied, err)
	}
}

// expandFixture is the recipe of docs/migrations.md on the fixture's
// orders: 0002 adds a nullable column (a catalog change, in a
// transaction), 0003 backfills it in batches that commit one by one and
// indexes it concurrently (outside a transaction, one statement per part).
func expandFixture() fstest.MapFS {
	_, full := lockFixture(true)
	full["0003_orders_channel_fill.up.sql"] = &fstest.MapFile{Data: []byte(`-- Backfill in batches of 500 by primary key, each committed.
DO $$
DECLARE
    last bigint := 0;
    upto bigint;
BEGIN
    LOOP
        SELECT max(id) INTO upto FROM (SELECT id FROM orders WHERE id > last ORDER BY id LIMIT 500) b;
        EXIT WHEN upto IS NULL;
        UPDATE orders SET channel = 'web:' || note WHERE id > last AND id <= upto AND channel IS NULL;
        last := upto;
        COMMIT;
    END LOOP;
END
$$;
--bun:split
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_channel_idx ON orders (channel);
`)}
	return full
}

// TestMigrateExpandBackfillIndex: the documented way to add, fill and index
// a column of a table the intake writes works with this runner (a batched
// backfill that commits as it goes, an index built concurrently), while
// the intake-like writer keeps inserting quickly.
func TestMigrateExpandBackfillIndex(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lt := newLockTest(t, true)
	// Rows to fill, loaded before the change.
	if _, err := lt.db.NewRaw("INSERT INTO orders (id, note) SELECT g, 'old' FROM generate_series(1000001, 1020000) g").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lt.holder.Commit(); err != nil { // no lock held in this test
		t.Fatal(err)
	}
	m := pgtest.NewMigrator(t, lt.db, expandFixture())
	applied, err := m.Up(ctx)
	inserts, slowest, werr := lt.stopWriter()
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if len(applied) != 2 || applied[0] != "0002_orders_channel" || applied[1] != "0003_orders_channel_fill" {
		t.Fatalf("applied %v, want [0002_orders_channel 0003_orders_channel_fill]", applied)
	}
	var unfilled, valid int
	if err := lt.db.NewRaw("SELECT count(*) FROM orders WHERE id > 1000000 AND channel IS DISTINCT FROM 'web:old'").Scan(ctx, &unfilled); err != nil {
		t.Fatal(err)
	}
	if err := lt.db.NewRaw(`SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relname = 'orders_channel_idx' AND i.indisvalid`).Scan(ctx, &valid); err != nil {
		t.Fatal(err)
	}
	if unfilled != 0 || valid != 1 {
		t.Fatalf("%d loaded rows not filled, %d valid orders_channel_idx; want 0 and 1", unfilled, valid)
	}
	if werr != nil || slowest > time.Second {
		t.Fatalf("writer: %d inserts, slowest %s, error %v; want each within 1s", inserts, slowest.Round(time.Millisecond), werr)
	}
	t.Logf("writer: %d inserts, slowest %s", inserts, slowest.Round(time.Millisecond))
}
