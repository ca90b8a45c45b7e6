//go:build schemachange

package migrations

import (
	"embed"
	"errors"
	"io/fs"
	"slices"
	"strings"
)

// The fixture migrations of the cluster test's schema change: a column added
// to order_receipts (9001), filled in batches and indexed concurrently
// (9002). Never part of a release build.
//
//go:embed schemachange/*.sql
var schemaChange embed.FS

// withFixtures adds the fixtures' folder to the migration files.
func withFixtures(release fs.FS) fs.FS { return union{release, schemaChange} }

// union is the migration files and the fixtures' folder under one root.
// bun/migrate's Discover walks every folder and names a migration by its
// file's base name, so schemachange/9001_….sql is migration 9001.
type union [2]fs.FS

func (u union) Open(name string) (fs.File, error) {
	for _, f := range u {
		if file, err := f.Open(name); !errors.Is(err, fs.ErrNotExist) {
			return file, err
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (u union) ReadDir(name string) ([]fs.DirEntry, error) {
	var all []fs.DirEntry
	found := false
	for _, f := range u {
		entries, err := fs.ReadDir(f, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found = true
		all = append(all, entries...)
	}
	if !found {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	slices.SortFunc(all, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return all, nil
}
