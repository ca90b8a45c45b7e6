// Package postgres implements the storage ports on PostgreSQL with bun and
// pgdriver: repositories that follow aggregates, a unit of work on
// db.RunInTx, the migrator and the fixture loader.
package postgres
