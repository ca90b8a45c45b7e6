// Package migrations embeds the numbered SQL migrations of the schema. Files
// named NNNN_name.tx.up.sql run in a transaction; each has a .tx.down.sql.
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS
