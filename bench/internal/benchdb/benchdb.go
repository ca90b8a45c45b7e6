// Package benchdb makes the databases of the benchmarks that fill their own.
package benchdb

import (
	"context"
	"flag"
	"net/url"

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
