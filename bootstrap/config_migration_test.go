package bootstrap_test

import (
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
)

// The migrator's waits for locks: defaults, settings, and values that stop
// start-up.
func TestMigrationConfig(t *testing.T) {
	c := mustLoad(t, map[string]string{})
	want := postgres.DefaultMigrateOptions()
	if got := c.Migration(); got != want {
		t.Fatalf("defaults: %+v, want %+v", got, want)
	}
	c = mustLoad(t, map[string]string{"MIGRATION_LOCK_TIMEOUT": "250ms", "MIGRATION_LOCK_RETRIES": "0"})
	want = postgres.MigrateOptions{LockTimeout: 250 * time.Millisecond, RetryBackoff: postgres.DefaultMigrationRetryBackoff}
	if got := c.Migration(); got != want {
		t.Fatalf("set: %+v, want %+v", got, want)
	}
	checkRefused(t, map[string]refusal{
		"a timeout of nothing":     {map[string]string{"MIGRATION_LOCK_TIMEOUT": "0s"}, "MIGRATION_LOCK_TIMEOUT"},
		"a timeout too long":       {map[string]string{"MIGRATION_LOCK_TIMEOUT": "5m"}, "MIGRATION_LOCK_TIMEOUT"},
		"a timeout not a duration": {map[string]string{"MIGRATION_LOCK_TIMEOUT": "soon"}, "MIGRATION_LOCK_TIMEOUT"},
		"negative retries":         {map[string]string{"MIGRATION_LOCK_RETRIES": "-1"}, "MIGRATION_LOCK_RETRIES"},
		"too many retries":         {map[string]string{"MIGRATION_LOCK_RETRIES": "100"}, "MIGRATION_LOCK_RETRIES"},
		"retries not an integer":   {map[string]string{"MIGRATION_LOCK_RETRIES": "a few"}, "MIGRATION_LOCK_RETRIES"},
	})
}
