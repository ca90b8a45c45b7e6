package migrations

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// timeoutSettings are the session settings a migration must leave to the
// runner (docs/migrations.md, "How a migration runs"): it sets lock_timeout
// to MIGRATION_LOCK_TIMEOUT before every migration and retries one that gave
// up, and sets no statement_timeout on purpose. A file that sets one itself
// (SET, SET LOCAL, set_config, ALTER … SET) overrides the runner's bound: a
// longer lock_timeout lets an ALTER queue every request on its table behind
// it for that long.
var timeoutSettings = regexp.MustCompile(`(?i)\b(lock_timeout|statement_timeout|idle_in_transaction_session_timeout|idle_session_timeout|transaction_timeout)\b`)

// timeoutExceptions are the migrations applied before the rule existed that
// set their own timeouts, by file name, with why they stay: an applied
// migration is never edited again except for comments (docs/migrations.md).
var timeoutExceptions = map[string]string{
	"0016_organization_rate_limits.tx.up.sql": "applied before the rule: its own lock_timeout (5 s) and statement_timeout (30 s) " +
		"bound it instead of MIGRATION_LOCK_TIMEOUT (docs/migrations.md, \"Migrations that set their own timeouts\")",
	"0016_organization_rate_limits.tx.down.sql": "the rollback of 0016, written with it",
}

// sqlComments matches -- line comments and /* */ block comments (not nested;
// no migration nests them), which may name a setting freely.
var sqlComments = regexp.MustCompile(`(?s)--[^\n]*|/\*.*?\*/`)

// timeoutViolations lists, for one file's SQL, each line that names a
// timeout setting outside a comment.
func timeoutViolations(sql string) []string {
	var found []string
	for i, line := range strings.Split(sqlComments.ReplaceAllStringFunc(sql, blankKeepingLines), "\n") {
		if timeoutSettings.MatchString(line) {
			found = append(found, "line "+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
		}
	}
	return found
}

// blankKeepingLines replaces a comment by its line breaks, so that line
// numbers stay those of the file.
func blankKeepingLines(comment string) string {
	return strings.Repeat("\n", strings.Count(comment, "\n"))
}

// TestMigrationsSetNoTimeouts refuses a migration (up or down, the release's
// and the fixtures of schemachange/) that sets a timeout of its own. `make
// lint` runs it too.
func TestMigrationsSetNoTimeouts(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*.sql", filepath.Join("schemachange", "*.sql")} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 32 {
		t.Fatalf("found %d migration files; the test runs in the wrong folder", len(files))
	}
	excepted := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found := timeoutViolations(string(b))
		if _, ok := timeoutExceptions[filepath.Base(f)]; ok {
			if len(found) == 0 {
				t.Errorf("%s is listed as an exception but sets no timeout: drop it from timeoutExceptions", f)
			}
			excepted++
			continue
		}
		for _, v := range found {
			t.Errorf("%s %s: a migration never sets its own timeouts; the runner sets lock_timeout (MIGRATION_LOCK_TIMEOUT) "+
				"and retries, and there is no statement_timeout on purpose (docs/migrations.md)", f, v)
		}
	}
	if excepted != len(timeoutExceptions) {
		t.Errorf("%d of the %d exceptions name a file that exists", excepted, len(timeoutExceptions))
	}
}

// TestTimeoutViolations shows what the rule catches and what it leaves:
// every way of setting one, whatever the case, and a mention in a comment.
func TestTimeoutViolations(t *testing.T) {
	for sql, want := range map[string]int{
		"SET LOCAL lock_timeout = '5s';":                             1,
		"set statement_timeout to 0;":                                1,
		"SELECT set_config('lock_timeout', '10s', true);":            1,
		"ALTER ROLE app SET idle_in_transaction_session_timeout = 0": 1,
		"SET LOCAL\n  Lock_Timeout = '1s';":                          1,
		"-- lock_timeout is the runner's\nALTER TABLE t ADD c int;":  0,
		"/* no statement_timeout:\n lock_timeout */ SELECT 1;":       0,
		"ALTER TABLE t ADD COLUMN lock_timeouts int;":                0,
	} {
		if got := timeoutViolations(sql); len(got) != want {
			t.Errorf("%q: %d findings %v, want %d", sql, len(got), got, want)
		}
	}
}
