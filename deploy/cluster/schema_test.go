package cluster_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// The schema change of the upgrade (migrations/schemachange/, built into the
// second image with the tag schemachange): 9001 adds order_receipts.received_on,
// 9002 fills it in batches outside a transaction and indexes it concurrently.
const (
	// preloaded receipts of the storefront's organization, loaded before the upgrade under order
	// ids 1…preloaded: the storefront's orders start at the test's Unix time in milliseconds, so
	// they never meet.
	preloaded      = 100_000
	changeIndex    = "order_receipts_received_on_idx"
	replicas       = 2 // the chart's default, with maxUnavailable 0 in the rollout
	sampleInterval = 500 * time.Millisecond
)

var changeMigrations = []string{"9001", "9002"}

// preload loads the receipts the schema change must fill: failed receipts
// (no payload kept, no shipment), so that they take no part in the
// exactly-once checks of the succeeded ones.
func preload(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := db.ExecContext(ctx, `INSERT INTO order_receipts
		(organization_id, order_id, status, attempts, last_error, first_received_at, last_received_at)
		SELECT $1, g, 'failed', 1, 'preloaded by the cluster test', now() - g * interval '1 minute', now() - g * interval '1 minute'
		FROM generate_series(1, $2::bigint) g`, org, preloaded)
	if err != nil {
		t.Fatalf("preloading %d receipts: %v", preloaded, err)
	}
	if n, _ := res.RowsAffected(); n != preloaded {
		t.Fatalf("preloaded %d receipts, want %d", n, preloaded)
	}
}

// schemaChange is what the database says of the schema change after the upgrade.
type schemaChange struct {
	filled     int  // preloaded receipts whose received_on is their first delivery's UTC day
	null       int  // preloaded receipts left NULL
	indexValid bool // the concurrently built index is valid
	// From 9001 recorded to 9002 recorded (the database's clock, the host's): the backfill and the
	// index build.
	filling struct{ from, to time.Time }
	during  int // the upgrade's deliveries sent in that time
	within  int // of them, answered as promised
}

// checkSchemaChange checks, after the upgrade, that the second image's
// migrations are applied, every preloaded receipt was filled with the day
// of its first delivery, and the index built concurrently is valid.
func checkSchemaChange(t *testing.T, db *sql.DB, upgrade *phase) schemaChange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var r schemaChange
	var recorded []time.Time
	for _, name := range changeMigrations {
		var n int
		var at time.Time
		if err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(max(migrated_at), 'epoch') FROM schema_migrations WHERE name = $1`,
			name).Scan(&n, &at); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("migration %s recorded %d times in schema_migrations after the upgrade, want once", name, n)
		}
		recorded = append(recorded, at)
	}
	// The storefront kept delivering while 9002 filled and indexed the table.
	r.filling.from, r.filling.to = recorded[0], recorded[1]
	for _, d := range upgrade.deliveries {
		if !d.at.Before(r.filling.from) && !d.at.After(r.filling.to) {
			r.during++
			if d.acceptable() {
				r.within++
			}
		}
	}
	if r.during == 0 || r.within != r.during {
		t.Errorf("while 9002 filled and indexed order_receipts (%v to %v), %d deliveries were sent, %d answered as promised; want some, all answered",
			r.filling.from, r.filling.to, r.during, r.within)
	}
	err := db.QueryRowContext(ctx, `SELECT
			count(*) FILTER (WHERE received_on = (first_received_at AT TIME ZONE 'UTC')::date),
			count(*) FILTER (WHERE received_on IS NULL)
		FROM order_receipts WHERE organization_id = $1 AND order_id BETWEEN 1 AND $2`, org, preloaded).Scan(&r.filled, &r.null)
	if err != nil {
		t.Fatalf("reading the preloaded receipts' received_on: %v", err)
	}
	if r.filled != preloaded || r.null != 0 {
		t.Errorf("after the upgrade %d of the %d preloaded receipts have received_on filled, %d NULL", r.filled, preloaded, r.null)
	}
	if err := db.QueryRowContext(ctx, `SELECT i.indisvalid AND i.indisready FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1`, changeIndex).Scan(&r.indexValid); err != nil {
		t.Fatalf("the index %s after the upgrade: %v", changeIndex, err)
	}
	if !r.indexValid {
		t.Errorf("the index %s is INVALID after the upgrade", changeIndex)
	}
	return r
}

// readyWatch samples the release's server pods while the upgrade runs:
// the old pods must keep serving until the new ones are Ready, so every
// sample has at least replicas pods Ready and not terminating (the rollout's
// maxUnavailable is 0), and while the hook Job migrates only old pods exist.
type readyWatch struct {
	oldVersion, newVersion string

	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex

	samples  int      // samples taken
	oldOnly  int      // of them, with only old pods, all serving (the hook Job's time)
	newReady int      // of them, with a new pod Ready
	errs     int      // samples kubectl could not take
	short    []string // samples with fewer than replicas pods serving
}

func watchReady(c *cluster, oldVersion, newVersion string) *readyWatch {
	w := &readyWatch{oldVersion: oldVersion, newVersion: newVersion, done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			pods, err := listServerPods(c)
			w.mu.Lock()
			if err != nil {
				w.errs++
			} else {
				w.record(time.Now(), pods)
			}
			w.mu.Unlock()
			select {
			case <-w.done:
				return
			case <-time.After(sampleInterval):
			}
		}
	}()
	return w
}

func (w *readyWatch) stop() {
	close(w.done)
	w.wg.Wait()
}

// record notes one sample.
func (w *readyWatch) record(at time.Time, pods []serverPod) {
	w.samples++
	serving, old, newReady := 0, 0, false
	for _, p := range pods {
		if p.ready && !p.deleting {
			serving++
		}
		if p.version == w.oldVersion {
			old++
		}
		if p.version == w.newVersion && p.ready && !p.deleting {
			newReady = true
		}
	}
	if old == len(pods) && serving >= replicas {
		w.oldOnly++
	}
	if newReady {
		w.newReady++
	}
	if serving < replicas {
		line := at.Format("15:04:05.000") + ":"
		for _, p := range pods {
			line += fmt.Sprintf(" %s (%s, ready %v, terminating %v)", p.name, p.version, p.ready, p.deleting)
		}
		w.short = append(w.short, line)
	}
}

// check fails the test with the watch's problems.
func (w *readyWatch) check(t *testing.T) {
	t.Helper()
	for _, p := range w.problems() {
		t.Error(p)
	}
}

// problems: a sample with fewer than replicas pods serving, no sample with
// only the old pods serving (before and while the hook Job migrates) or
// none with a new pod Ready, or too few samples to say.
func (w *readyWatch) problems() []string {
	var out []string
	if len(w.short) > 0 {
		out = append(out, fmt.Sprintf("during the upgrade, %d of %d samples had fewer than %d server pods Ready and not terminating:\n%s",
			len(w.short), w.samples, replicas, strings.Join(w.short, "\n")))
	}
	if w.samples < 5 || w.errs > w.samples/10 {
		out = append(out, fmt.Sprintf("the upgrade's pods were sampled %d times, %d samples failed: too few to show the old pods serving", w.samples, w.errs))
	}
	if w.oldOnly == 0 || w.newReady == 0 {
		out = append(out, fmt.Sprintf("of %d samples during the upgrade, %d saw only the old pods serving and %d a new pod Ready; want some of each",
			w.samples, w.oldOnly, w.newReady))
	}
	return out
}
