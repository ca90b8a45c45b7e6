// Package migrations embeds the numbered SQL migrations of the schema. Files
// named NNNN_name.tx.up.sql run in a transaction and have a .tx.down.sql;
// NNNN_name.up.sql (and its .down.sql) run outside one, for statements such
// as VACUUM that cannot run in a transaction.
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS
