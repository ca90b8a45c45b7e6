// Package benchdb makes the databases of the benchmarks that fill their own.
package benchdb

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/migrations"
)

// Flags declares the flags of a benchmark that makes its database anew:
// -admin, a database of the server to make it from, and -db, its name
// (name by default).
func Flags(name string) (admin, db *string) {
	return flag.String("admin", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "a database of the server, to create the benchmark's"),
		flag.String("db", name, "the benchmark's database (made anew)")
}

// Anew drops the database name, on the server of admin (a session of it,
// opened on adminDSN), and creates it anew: empty, or a copy of template
// unless template is "". It returns the new database's DSN.
func Anew(ctx context.Context, admin *bun.DB, adminDSN, name, template string) (string, error) {
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return "", err
	}
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := admin.ExecContext(ctx, create); err != nil {
		return "", err
	}
	u, err := url.Parse(adminDSN)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// Migrate applies the service's migrations to db.
func Migrate(ctx context.Context, db *bun.DB) error {
	m, err := postgres.NewMigrator(db, migrations.FS)
	if err != nil {
		return err
	}
	_, err = m.Up(ctx)
	return err
}

// WithParam sets a query parameter of a DSN.
func WithParam(dsn, name, value string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// CreateDatabase creates the database of dsn on its server when missing.
func CreateDatabase(ctx context.Context, dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil || len(u.Path) < 2 {
		return fmt.Errorf("-dsn %q names no database", dsn)
	}
	name := u.Path[1:]
	if !regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`).MatchString(name) {
		return fmt.Errorf("database name %q: use lower-case letters, digits and _", name)
	}
	admin := *u
	admin.Path = "/postgres"
	db, err := postgres.Open(postgres.Options{DSN: admin.String(), MaxOpenConns: 1})
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	var exists bool
	if err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", name).Scan(ctx, &exists); err != nil {
		return fmt.Errorf("connect to %s: %w", admin.Redacted(), err)
	}
	if exists {
		return nil
	}
	fmt.Fprintf(os.Stderr, "gen: create database %s\n", name)
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+name)
	return err
}
