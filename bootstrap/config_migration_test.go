package bootstrap_test

import (
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
)

// The migrator's waits for locks: defaults, settings, and values that stop
// start-up.
func TestMigrationConfig(t *testing.T) {
	c, err := load(t, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	want := postgres.DefaultMigrateOptions()
	if got := c.Migration(); got != want {
		t.Fatalf("defaults: %+v, want %+v", got, want)
	}
	c, err = load(t, map[string]string{"MIGRATION_LOCK_TIMEOUT": "250ms", "MIGRATION_LOCK_RETRIES": "0"})
	if err != nil {
		t.Fatal(err)
	}
	want = postgres.MigrateOptions{LockTimeout: 250 * time.Millisecond, RetryBackoff: postgres.DefaultMigrationRetryBackoff}
	if got := c.Migration(); got != want {
		t.Fatalf("set: %+v, want %+v", got, want)
	}
	for name, env := range map[string]map[string]string{
		"a timeout of nothing":     {"MIGRATION_LOCK_TIMEOUT": "0s"},
		"a timeout too long":       {"MIGRATION_LOCK_TIMEOUT": "5m"},
		"a timeout not a duration": {"MIGRATION_LOCK_TIMEOUT": "soon"},
		"negative retries":         {"MIGRATION_LOCK_RETRIES": "-1"},
		"too many retries":         {"MIGRATION_LOCK_RETRIES": "100"},
		"retries not an integer":   {"MIGRATION_LOCK_RETRIES": "a few"},
	} {
		var key string
		for k := range env {
			key = k
		}
		if _, err := load(t, env); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v, want an error naming %s", name, err, key)
		}
	}
}
