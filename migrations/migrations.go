// Package migrations embeds the numbered SQL migrations of the schema. Files
// named NNNN_name.tx.up.sql run in a transaction and have a .tx.down.sql;
// NNNN_name.up.sql (and its .down.sql) run outside one, for statements such
// as VACUUM that cannot run in a transaction.
//
// A binary built with the tag schemachange also carries the fixture
// migrations of schemachange/ (schemachange.go): the cluster test's
// upgraded image, which changes the schema of a table the intake writes
// while the old pods serve.
package migrations

import (
	"embed"
)

//go:embed *.sql
var files embed.FS

// FS holds the migration files (and, with the tag schemachange, the
// fixtures).
var FS = withFixtures(files)
