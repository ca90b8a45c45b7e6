package backoffice

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// TestMigrateUpLockTimeoutFromEnvironment: `migrate up` takes its waits for
// locks from MIGRATION_LOCK_TIMEOUT and MIGRATION_LOCK_RETRIES. Behind a
// session holding a lock on invoices, the pending migration (0014, rolled
// back for the test) gives up after each wait, says so on stderr, and the
// command exits 1 once the retries run out, instead of waiting for the
// session; with the lock released, `migrate up` applies it.
func TestMigrateUpLockTimeoutFromEnvironment(t *testing.T) {
	ctx := context.Background()
	dsn := e2e.ScratchDatabase(t, true)
	env := e2e.BaseEnv(dsn, "MIGRATION_LOCK_TIMEOUT=200ms", "MIGRATION_LOCK_RETRIES=1")
	// Back to the schema before 0014, whatever migrations follow it.
	const last = "0014_invoice_search_gram_lexemes"
	for i := 0; ; i++ {
		out := e2e.MustCLI(t, env, "migrate", "down")
		if out == "rolled back "+last+"\n" {
			break
		}
		if i == 20 || !strings.HasPrefix(out, "rolled back ") {
			t.Fatalf("migrate down: %q, never %s", out, last)
		}
	}

	// A long reader of invoices: 0014 needs ACCESS EXCLUSIVE on the table.
	db := pgtest.Open(t, dsn)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	var n int
	if err := tx.NewRaw("SELECT count(*) FROM invoices").Scan(ctx, &n); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	r := e2e.RunCLI(t, env, "migrate", "up")
	took := time.Since(start)
	wantRetry := "migration " + last + " gave up waiting for a lock another session holds (attempt 1 of 2); trying again in 1s\n"
	if r.Code != 1 || !strings.Contains(r.Stderr, wantRetry) || !strings.Contains(r.Stderr, "55P03") {
		t.Fatalf("migrate up behind a held lock: exit %d, stderr %q; want 1, one retry and the lock timeout", r.Code, r.Stderr)
	}
	// Two waits of 200 ms and a pause of 1 s, plus starting the command.
	if took > 15*time.Second {
		t.Fatalf("migrate up gave up after %s", took.Round(time.Millisecond))
	}
	if strings.Contains(r.Stdout, "applied") {
		t.Fatalf("migrate up reported %q although it failed", r.Stdout)
	}

	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if out := e2e.MustCLI(t, env, "migrate", "up"); !strings.HasPrefix(out, "applied "+last+"\n") {
		t.Fatalf("migrate up after the release: %q", out)
	}
}
