package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/migrate"
)

// migrationLockKey is the advisory lock that serialises migrators of all
// replicas: the first applies the migrations, the others wait and then find
// nothing left to do.
const migrationLockKey = 0x66756c66 // "fulf"

// Defaults of MigrateOptions (docs/migrations.md, "How a migration runs").
const (
	// DefaultMigrationLockTimeout is how long one statement of a migration
	// waits for a lock another session holds before it gives up. While it
	// waits, every request that needs a conflicting lock on the same table
	// queues behind it, so it stays below the server's own wait for a lock
	// (half of REQUEST_TIMEOUT, 2 s by default): a request queued behind a
	// waiting migration is answered, late by at most this much.
	DefaultMigrationLockTimeout = time.Second
	// DefaultMigrationLockRetries is how many times a migration that gave
	// up waiting for a lock is tried again.
	DefaultMigrationLockRetries = 5
	// DefaultMigrationRetryBackoff is the pause before the first retry; it
	// doubles before each further one (1, 2, 4, 8, 16 s: about half a
	// minute in all), leaving the table to the requests in between.
	DefaultMigrationRetryBackoff = time.Second
)

// MigrateOptions bound how long a migration may wait for a lock.
type MigrateOptions struct {
	// LockTimeout is PostgreSQL's lock_timeout for every statement of a
	// migration; zero takes DefaultMigrationLockTimeout.
	LockTimeout time.Duration
	// LockRetries is how many times a migration that failed with
	// lock_not_available (its lock_timeout ran out) is tried again; zero:
	// never.
	LockRetries int
	// RetryBackoff is the pause before the first retry, doubled before
	// each further one; zero takes DefaultMigrationRetryBackoff.
	RetryBackoff time.Duration
}

// DefaultMigrateOptions are the options of a migrator made without any.
func DefaultMigrateOptions() MigrateOptions {
	return MigrateOptions{LockTimeout: DefaultMigrationLockTimeout, LockRetries: DefaultMigrationLockRetries,
		RetryBackoff: DefaultMigrationRetryBackoff}
}

// MigrationRetry describes a migration about to be tried again.
type MigrationRetry struct {
	Migration string        // its name, e.g. 0017_shipments_channel
	Attempt   int           // the attempt that failed, from 1
	Attempts  int           // attempts in all (1 + LockRetries)
	Wait      time.Duration // the pause before the next attempt
}

// Migrator applies the embedded SQL migrations.
type Migrator struct {
	db         *bun.DB
	migrations *migrate.Migrations
	opts       MigrateOptions
	onRetry    func(MigrationRetry)
}

// ReportRetries has fn told of each retry of a migration, before its
// pause (the migrate command prints a line). Call it before Up.
func (m *Migrator) ReportRetries(fn func(MigrationRetry)) { m.onRetry = fn }

// MigrationState is one migration and whether it is applied.
type MigrationState struct {
	Name    string
	Applied bool
}

// NewMigrator reads the migration files of fsys. opts (at most one; none
// takes the defaults) bound the migrations' waits for locks.
func NewMigrator(db *bun.DB, fsys fs.FS, opts ...MigrateOptions) (*Migrator, error) {
	ms := migrate.NewMigrations()
	if err := ms.Discover(fsys); err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	o := DefaultMigrateOptions()
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
		if o.LockTimeout <= 0 {
			o.LockTimeout = DefaultMigrationLockTimeout
		}
		if o.RetryBackoff <= 0 {
			o.RetryBackoff = DefaultMigrationRetryBackoff
		}
		o.LockRetries = max(o.LockRetries, 0)
	default:
		return nil, errors.New("NewMigrator takes at most one MigrateOptions")
	}
	return &Migrator{db: db, migrations: ms, opts: o}, nil
}

func (m *Migrator) bunMigrator() *migrate.Migrator {
	return migrate.NewMigrator(m.db, m.migrations,
		migrate.WithTableName("schema_migrations"),
		migrate.WithLocksTableName("schema_migration_locks"),
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.BeforeMigration(m.setLockTimeout),
		migrate.AfterMigration(resetLockTimeout))
}

// setLockTimeout runs on the migration's own session before its first
// statement: inside the transaction of a .tx. file (SET LOCAL: it ends
// with the transaction), on the dedicated connection of the others (SET,
// reset after the migration by resetLockTimeout; a migration that fails
// leaves it on that pooled connection of the migrator's pool, where the
// next migration sets it again).
func (m *Migrator) setLockTimeout(ctx context.Context, db bun.IConn, _ *migrate.Migration) error {
	ms := strconv.FormatInt(max(m.opts.LockTimeout.Milliseconds(), 1), 10)
	q := "SET lock_timeout = " + ms
	if _, ok := db.(bun.Tx); ok {
		q = "SET LOCAL lock_timeout = " + ms
	}
	_, err := db.ExecContext(ctx, q)
	return err
}

func resetLockTimeout(ctx context.Context, db bun.IConn, _ *migrate.Migration) error {
	if _, ok := db.(bun.Tx); ok {
		return nil
	}
	_, err := db.ExecContext(ctx, "RESET lock_timeout")
	return err
}

// isLockNotAvailable reports whether err is PostgreSQL's
// lock_not_available (SQLSTATE 55P03): a statement's lock_timeout ran out
// while another session held the lock.
func isLockNotAvailable(err error) bool {
	var pgErr pgdriver.Error
	return errors.As(err, &pgErr) && pgErr.Field('C') == "55P03"
}

// The migration advisory lock, taken and released on one session.
const (
	migrationLockSQL   sqlSelect = `SELECT pg_advisory_lock($1)`
	migrationUnlockSQL sqlSelect = `SELECT pg_advisory_unlock($1)`
)

// withLock runs fn while holding the migration advisory lock on a dedicated
// connection.
func (m *Migrator) withLock(ctx context.Context, fn func(*migrate.Migrator) error) (err error) {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return dbErr(err)
	}
	defer func() { _ = conn.Close() }()
	run := runner{db: conn}
	if _, err := run.exec(ctx, migrationLockSQL, migrationLockKey); err != nil {
		return dbErr(err)
	}
	defer func() {
		// A fresh context: the lock must be released even when ctx is done.
		_, uerr := run.exec(context.WithoutCancel(ctx), migrationUnlockSQL, migrationLockKey)
		err = errors.Join(err, dbErr(uerr))
	}()
	bm := m.bunMigrator()
	if err := bm.Init(ctx); err != nil {
		return dbErr(err)
	}
	return fn(bm)
}

// Up applies every migration not yet applied and returns their names. A
// migration whose statement gave up waiting for a lock (lock_timeout) is
// rolled back (a .tx. file) or left part-done (the others, which are
// written to be run again) and tried again after a pause, up to
// LockRetries times; the migrations before it stay applied. Other
// replicas running Up meanwhile wait on the advisory lock and then find
// nothing left to do.
func (m *Migrator) Up(ctx context.Context) (applied []string, err error) {
	err = m.withLock(ctx, func(bm *migrate.Migrator) error {
		attempts := 1 + m.opts.LockRetries
		wait := m.opts.RetryBackoff
		for attempt := 1; ; attempt++ {
			group, err := bm.Migrate(ctx)
			if group != nil {
				for _, mig := range group.Migrations {
					// The group ends with the migration that failed, if one did.
					if mig.IsApplied() {
						applied = append(applied, mig.String())
					}
				}
			}
			if err == nil || !isLockNotAvailable(err) || attempt >= attempts {
				return dbErr(err)
			}
			failed := ""
			if group != nil && len(group.Migrations) > 0 {
				failed = group.Migrations[len(group.Migrations)-1].String()
			}
			if m.onRetry != nil {
				m.onRetry(MigrationRetry{Migration: failed, Attempt: attempt, Attempts: attempts, Wait: wait})
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return errors.Join(dbErr(err), ctx.Err())
			case <-t.C:
			}
			wait *= 2
		}
	})
	return applied, err
}

// Down rolls back the last applied migration and returns its name, or "" when
// none is applied.
func (m *Migrator) Down(ctx context.Context) (name string, err error) {
	err = m.withLock(ctx, func(bm *migrate.Migrator) error {
		ms, err := bm.MigrationsWithStatus(ctx)
		if err != nil {
			return dbErr(err)
		}
		applied := ms.Applied()
		if len(applied) == 0 {
			return nil
		}
		last := slices.MaxFunc(applied, func(a, b migrate.Migration) int { return compareNames(a.Name, b.Name) })
		if last.Down == nil {
			return fmt.Errorf("migration %s has no down migration", last.String())
		}
		if err := last.Down(ctx, bm, &last); err != nil {
			return fmt.Errorf("roll back %s: %w", last.String(), dbErr(err))
		}
		name = last.String()
		return dbErr(bm.MarkUnapplied(ctx, &last))
	})
	return name, err
}

// Status lists every migration and whether it is applied.
func (m *Migrator) Status(ctx context.Context) ([]MigrationState, error) {
	var out []MigrationState
	err := m.withLock(ctx, func(bm *migrate.Migrator) error {
		ms, err := bm.MigrationsWithStatus(ctx)
		if err != nil {
			return dbErr(err)
		}
		for _, mig := range ms {
			out = append(out, MigrationState{Name: mig.String(), Applied: mig.IsApplied()})
		}
		return nil
	})
	return out, err
}

// Latest is the name of the newest embedded migration.
func (m *Migrator) Latest() string {
	ms := m.migrations.Sorted()
	if len(ms) == 0 {
		return ""
	}
	return ms[len(ms)-1].Name
}

// appliedMigrationsSQL reads the names of the migrations applied.
const appliedMigrationsSQL sqlSelect = `SELECT name FROM schema_migrations`

// AtLatest reports whether the database's schema has every embedded
// migration applied. It reads the migrations table only (no lock), so
// readiness probes stay cheap.
func (m *Migrator) AtLatest(ctx context.Context) (bool, error) {
	var names []string
	err := runner{db: m.db}.query(ctx, appliedMigrationsSQL, func(rows *sql.Rows) error {
		var name string
		err := rows.Scan(&name)
		names = append(names, name)
		return err
	})
	if err != nil {
		return false, dbErr(err)
	}
	for _, mig := range m.migrations.Sorted() {
		if !slices.Contains(names, mig.Name) {
			return false, nil
		}
	}
	return true, nil
}

func compareNames(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Readiness implements the readiness check: the database answers and its
// schema has every migration of this binary.
type Readiness struct {
	DB       *bun.DB
	Migrator *Migrator
}

// Ready returns nil when the service can serve.
func (r Readiness) Ready(ctx context.Context) error {
	if err := r.DB.PingContext(ctx); err != nil {
		return errors.New("the database does not answer")
	}
	ok, err := r.Migrator.AtLatest(ctx)
	if err != nil || !ok {
		return fmt.Errorf("the schema is not at migration %s; run: fulfillment migrate up", r.Migrator.Latest())
	}
	return nil
}
