package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// migrationLockKey is the advisory lock that serialises migrators of all
// replicas: the first applies the migrations, the others wait and then find
// nothing left to do.
const migrationLockKey = 0x66756c66 // "fulf"

// Migrator applies the embedded SQL migrations.
type Migrator struct {
	db         *bun.DB
	migrations *migrate.Migrations
}

// MigrationState is one migration and whether it is applied.
type MigrationState struct {
	Name    string
	Applied bool
}

// NewMigrator reads the migration files of fsys.
func NewMigrator(db *bun.DB, fsys fs.FS) (*Migrator, error) {
	ms := migrate.NewMigrations()
	if err := ms.Discover(fsys); err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	return &Migrator{db: db, migrations: ms}, nil
}

func (m *Migrator) bunMigrator() *migrate.Migrator {
	return migrate.NewMigrator(m.db, m.migrations,
		migrate.WithTableName("schema_migrations"),
		migrate.WithLocksTableName("schema_migration_locks"),
		migrate.WithMarkAppliedOnSuccess(true))
}

// withLock runs fn while holding the migration advisory lock on a dedicated
// connection.
func (m *Migrator) withLock(ctx context.Context, fn func(*migrate.Migrator) error) (err error) {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return dbErr(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrationLockKey); err != nil {
		return dbErr(err)
	}
	defer func() {
		// A fresh context: the lock must be released even when ctx is done.
		_, uerr := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", migrationLockKey)
		err = errors.Join(err, dbErr(uerr))
	}()
	bm := m.bunMigrator()
	if err := bm.Init(ctx); err != nil {
		return dbErr(err)
	}
	return fn(bm)
}

// Up applies every migration not yet applied and returns their names.
func (m *Migrator) Up(ctx context.Context) (applied []string, err error) {
	err = m.withLock(ctx, func(bm *migrate.Migrator) error {
		group, err := bm.Migrate(ctx)
		if group != nil {
			for _, mig := range group.Migrations {
				applied = append(applied, mig.String())
			}
		}
		return dbErr(err)
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

// AtLatest reports whether the database's schema has every embedded
// migration applied. It reads the migrations table only (no lock), so
// readiness probes stay cheap.
func (m *Migrator) AtLatest(ctx context.Context) (bool, error) {
	var names []string
	err := m.db.NewSelect().Table("schema_migrations").Column("name").Scan(ctx, &names)
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
