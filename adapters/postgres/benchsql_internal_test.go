package postgres

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIntakeBenchScriptRunsTheIntakesSQL: bench/intake/intake.sql, the
// pgbench script the intake is measured against, holds every statement of
// a new order's intake, word for word, with pgbench expressions in place of
// the parameters; a change to one side that the other misses fails here.
func TestIntakeBenchScriptRunsTheIntakesSQL(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "bench", "intake", "intake.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(l, "--") && !strings.HasPrefix(l, `\set`) {
			lines = append(lines, l)
		}
	}
	script := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	param := regexp.MustCompile(`\\\$[1-9][0-9]*(::[a-z]+(\\\[\\\])?)?`)
	for _, q := range []string{claimOrderSQL, acceptOrderSQL} {
		text := strings.Join(strings.Fields(q), " ")
		pattern := param.ReplaceAllString(regexp.QuoteMeta(text), `[^;]+?`)
		if !regexp.MustCompile(`(^|; )` + pattern + `;`).MatchString(script) {
			t.Errorf("bench/intake/intake.sql lacks this statement of the intake:\n%s", text)
		}
	}
}
