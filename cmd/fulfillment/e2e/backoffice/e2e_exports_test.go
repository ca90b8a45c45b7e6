package backoffice

// A large client's month as CSV (GET /v0/invoices/{id}/charges?format=csv):
// 2,000,000 charges download whole, past the request deadline, with the
// server's heap flat. The download runs against a binary built without the
// race detector (the package's is built with it, ten times slower on this
// path), on a database of its own.

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

const (
	exportOrg     = "org_e2e_export"
	exportInvoice = "inv_e2e_export"
)

var plainBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "fulfillment-e2e-plain-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "fulfillment")
	build := exec.Command("go", "build", "-o", bin, "./cmd/fulfillment")
	build.Dir = e2e.RepoRoot
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %w\n%s", err, out)
	}
	return bin, nil
})

// launchPlain starts `serve` of the binary built without the race detector
// and waits until it is ready.
func launchPlain(t *testing.T, env []string) *e2e.Server {
	t.Helper()
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(bin)) })
	s := e2e.LaunchBinary(t, bin, env)
	s.WaitFor(t, "/readyz", http.StatusOK)
	return s
}

// seedExport writes one finalized invoice of n charges (pick & pack orders
// spread over November 2030) into the database at dsn, a database of the
// test's own: for speed, the charges' unique key (what the accruals insert
// by) is dropped and their per-day sums (billing_charge_days, which no read
// of the charges uses) are not kept.
func seedExport(t *testing.T, dsn string, n int) {
	t.Helper()
	db := pgtest.Open(t, dsn)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	exec := func(q string, args ...any) error { _, err := tx.ExecContext(ctx, q, args...); return err }
	err = errors.Join(
		exec(`SET LOCAL synchronous_commit = off`),
		exec(`ALTER TABLE billing_charges DROP CONSTRAINT billing_charges_organization_id_fee_source_id_key`),
		exec(`ALTER TABLE billing_charges DISABLE TRIGGER billing_charge_days_insert`),
		exec(`INSERT INTO organizations (id, name) VALUES (?, 'Export e2e')`, exportOrg),
		exec(`INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency, total_amount, search_text, created_at, updated_at)
			VALUES (?, ?, 'INV-2030-000001', 'unpaid', 'Fulfillment, November 2030', '', '2031-01-01', 'USD', ?::bigint * 250, 'export',
			'2030-12-02', '2030-12-02')`, exportInvoice, exportOrg, n),
		exec(`INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost)
			VALUES (? || '_0', ?, 0, 'Pick & Pack orders', 'wh_export: shipments', ?, 250, ?::bigint * 250)`, exportInvoice, exportInvoice, n, n),
		exec(`INSERT INTO billing_periods (organization_id, starts_at, ends_at, invoice_id, status, finalized_at, invoice_key)
			VALUES (?, '2030-11-01', '2030-12-01', ?, 'finalized', '2030-12-02', 'INV-2030-000001')`, exportOrg, exportInvoice),
		exec(`INSERT INTO billing_charges (organization_id, fee, source_id, warehouse_id, title, quantity_milli, divisor, unit_cost, occurred_at)
			SELECT ?, 'pick_pack_order', 'shp_export_' || i, 'wh_export', 'Pick & Pack orders', 1000, 1, 250,
				timestamptz '2030-11-01' + (i - 1) * (interval '30 days' / ?::int)
			FROM generate_series(1, ?::int) i`, exportOrg, n, n),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE billing_charges"); err != nil {
		t.Fatal(err)
	}
}

// heapInuse is the server's go_memstats_heap_inuse_bytes.
func heapInuse(base string) (int64, error) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_heap_inuse_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int64(f), err
		}
	}
	return 0, errors.New("no go_memstats_heap_inuse_bytes in /metrics")
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// The CSV of a large client's month, 2,000,000 charges, downloads whole
// within its own deadline, past a request deadline of 1 s, while the
// server's heap stays far below the CSV's size (sampled every 10 ms).
func TestLargeMonthDownloadsWhole(t *testing.T) {
	e2e.Exclusive(t) // loads the machine by itself: never beside a test that measures deadlines
	const n = 2_000_000
	dsn := e2e.ScratchDatabase(t, true)
	seeded := time.Now()
	seedExport(t, dsn, n)
	t.Logf("seeded %d charges in %s", n, time.Since(seeded).Round(time.Millisecond))
	srv := launchPlain(t, e2e.BaseEnv(dsn, "REQUEST_TIMEOUT=1s", "SHUTDOWN_TIMEOUT=10s", "LOG_LEVEL=warn", "BILLING_INTERVAL=24h"))
	token := strings.TrimSpace(e2e.MustCLI(t, e2e.BaseEnv(dsn), "token", "mint", "--org", exportOrg, "--scopes", "invoices"))
	idle, err := heapInuse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}

	var peak atomic.Int64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if h, err := heapInuse(srv.URL); err == nil && h > peak.Load() {
				peak.Store(h)
			}
		}
	}()
	start := time.Now()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/v0/invoices/"+exportInvoice+"/charges?format=csv", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		close(stop)
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		close(stop)
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d after %s: %s", resp.StatusCode, time.Since(start), b)
	}
	body := &countingReader{r: resp.Body}
	r := csv.NewReader(body)
	r.ReuseRecord = true
	rows, sum := -1, int64(0) // the header is no charge
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			close(stop)
			t.Fatalf("after %d rows (%d bytes, %s): %v", rows, body.n, time.Since(start), err)
		}
		if rows++; rows > 0 {
			c, err := strconv.ParseInt(rec[4], 10, 64)
			if err != nil {
				t.Fatalf("row %d: unitCost %q", rows, rec[4])
			}
			sum += c
		}
	}
	took := time.Since(start)
	close(stop)
	<-sampled
	t.Logf("%d charges, %.1f MB in %s; the server's heap in use: %.1f MB idle, %.1f MB at most during the download",
		rows, float64(body.n)/1e6, took.Round(time.Millisecond), float64(idle)/1e6, float64(peak.Load())/1e6)
	if resp.StatusCode != http.StatusOK || rows != n || sum != int64(n)*250 {
		t.Fatalf("status %d, %d charges summing to %d, want 200, %d charges, %d", resp.StatusCode, rows, sum, n, int64(n)*250)
	}
	if took < time.Second {
		t.Fatalf("the download took %s: it proves nothing against a 1 s request deadline", took)
	}
	if peak.Load() == 0 || peak.Load() > 64<<20 || peak.Load() > body.n/4 {
		t.Fatalf("the server's heap in use reached %.1f MB for a CSV of %.1f MB: not flat", float64(peak.Load())/1e6, float64(body.n)/1e6)
	}
	if logs := srv.Logs(); strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("the server logged errors:\n%s", logs)
	}
}
