//go:build !schemachange

package migrations

import (
	"io/fs"
)

// withFixtures is the migration files alone: a release carries no fixtures.
func withFixtures(release fs.FS) fs.FS { return release }
