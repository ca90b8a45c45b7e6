// Command charges is the benchmark of an invoice's charges as CSV
// (docs/billing.md, "Every charge traceable"; figures in
// docs/benchmarks.md): on a database of its own it writes one finalized
// invoice with N charges (default 100,000, spread over its month), starts the service built from
// this checkout, and downloads GET /v0/invoices/{id}/charges?format=csv
// ROUNDS times, while it samples the server's heap (its /metrics,
// go_memstats_heap_alloc_bytes, every 5 ms) and reads its peak resident
// memory (VmHWM) at the end. It checks every download has N rows.
//
//	go run ./bench/charges -admin postgres://postgres@127.0.0.1:5432/postgres [-n 100000 -rounds 5]
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/bench/internal/benchdb"
)

const (
	org        = "org_bench_charges"
	invoiceID  = "inv_bench_charges"
	signingKey = "bench-signing-key-0123456789abcdef-0123456789"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/charges:", err)
		os.Exit(1)
	}
}

func run() error {
	admin, name := benchdb.Flags("fulfillment_bench_charges")
	n := flag.Int("n", 100_000, "charges of the invoice")
	rounds := flag.Int("rounds", 5, "downloads")
	flag.Parse()
	ctx := context.Background()

	fmt.Fprintf(os.Stderr, "bench/charges: writing %d charges into %s\n", *n, *name)
	dsn, err := setUp(ctx, *admin, *name, *n)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "bench/charges: building and starting the service")
	work := ".tmp/bench-charges"
	if err := os.MkdirAll(work, 0o750); err != nil {
		return err
	}
	bin := filepath.Join(work, "fulfillment")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/fulfillment").CombinedOutput(); err != nil {
		return fmt.Errorf("build: %w\n%s", err, out)
	}
	env := append(os.Environ(), "DATABASE_URL="+dsn, "AUTH_SIGNING_KEY="+signingKey, "OTEL_TRACES_EXPORTER=none",
		"LOG_LEVEL=warn", "BILLING_INTERVAL=24h")
	mint := exec.CommandContext(ctx, bin, "token", "mint", "--org", org, "--scopes", "invoices")
	mint.Env, mint.Stderr = env, os.Stderr
	token, err := mint.Output()
	if err != nil {
		return fmt.Errorf("token mint: %w", err)
	}
	addr, err := freeAddr(ctx)
	if err != nil {
		return err
	}
	srv := exec.CommandContext(ctx, bin, "serve")
	srv.Env = append(env, "HTTP_ADDR="+addr)
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }()
	base := "http://" + addr
	if err := waitReady(ctx, base); err != nil {
		return err
	}
	rss := func(field string) int64 { return procStatus(srv.Process.Pid, field) }
	idleHeap, _ := heapAlloc(ctx, base)
	fmt.Printf("%d charges; the server idle: heap %.1f MB, resident %.1f MB\n", *n, mb(idleHeap), mb(rss("VmRSS")))

	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the server's heap, sampled while the downloads run
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if h, err := heapAlloc(ctx, base); err == nil && h > peak.Load() {
				peak.Store(h)
			}
		}
	}()
	var times []time.Duration
	var size int64
	for range *rounds {
		start := time.Now()
		rows, bytes, err := download(ctx, base, strings.TrimSpace(string(token)))
		if err != nil {
			close(stop)
			return err
		}
		times = append(times, time.Since(start))
		if rows != *n {
			close(stop)
			return fmt.Errorf("the CSV has %d charges, want %d", rows, *n)
		}
		size = bytes
	}
	close(stop)
	<-sampled
	best, median := minMedian(times)
	fmt.Printf("CSV of %d charges (%.1f MB): %s best, %s median of %d; the server's peak heap %.1f MB (sampled every 5 ms), peak resident %.1f MB\n",
		*n, mb(size), best.Round(time.Millisecond), median.Round(time.Millisecond), len(times), mb(peak.Load()), mb(rss("VmHWM")))
	return nil
}

// setUp makes the benchmark's database anew with one finalized invoice of
// n charges (Pick & Pack orders spread over November 2030).
func setUp(ctx context.Context, admin, name string, n int) (string, error) {
	adminDB, err := postgres.Open(postgres.Options{DSN: admin, MaxOpenConns: 1})
	if err != nil {
		return "", err
	}
	defer func() { _ = adminDB.Close() }()
	dsn, err := benchdb.Anew(ctx, adminDB, admin, name, "")
	if err != nil {
		return "", err
	}
	db, err := postgres.Open(postgres.Options{DSN: dsn, MaxOpenConns: 4}) // the migrator holds one for its lock
	if err != nil {
		return "", err
	}
	defer func() { _ = db.Close() }()
	if err := benchdb.Migrate(ctx, db); err != nil {
		return "", err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	exec := func(q string, args ...any) error { _, err := tx.ExecContext(ctx, q, args...); return err }
	err = errors.Join(
		exec(`INSERT INTO organizations (id, name) VALUES (?, 'Charges bench')`, org),
		exec(`INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency, total_amount, search_text, created_at, updated_at)
			VALUES (?, ?, 'INV-2030-000001', 'unpaid', 'Fulfillment, November 2030', '', '2031-01-01', 'USD', ?::bigint * 250, 'bench',
			'2030-12-02', '2030-12-02')`, invoiceID, org, n),
		exec(`INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost)
			VALUES (? || '_0', ?, 0, 'Pick & Pack orders', 'wh_bench: shipments', ?, 250, ?::bigint * 250)`, invoiceID, invoiceID, n, n),
		exec(`INSERT INTO billing_periods (organization_id, starts_at, ends_at, invoice_id, status, finalized_at, invoice_key)
			VALUES (?, '2030-11-01', '2030-12-01', ?, 'finalized', '2030-12-02', 'INV-2030-000001')`, org, invoiceID),
		exec(`INSERT INTO billing_charges (organization_id, fee, source_id, warehouse_id, title, quantity_milli, divisor, unit_cost, occurred_at)
			SELECT ?, 'pick_pack_order', 'shp_bench_' || i, 'wh_bench', 'Pick & Pack orders', 1000, 1, 250,
				timestamptz '2030-11-01' + (i - 1) * (interval '30 days' / ?::int)
			FROM generate_series(1, ?::int) i`, org, n, n),
	)
	if err != nil {
		_ = tx.Rollback()
		return "", err
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	_, err = db.ExecContext(ctx, `ANALYZE`)
	return dsn, err
}

// download reads the CSV and counts its charges (rows after the header).
func download(ctx context.Context, base, token string) (rows int, size int64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v0/invoices/"+invoiceID+"/charges?format=csv", nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return 0, 0, fmt.Errorf("GET charges: %d %s", resp.StatusCode, b)
	}
	counted := &countingReader{r: resp.Body}
	r := csv.NewReader(counted)
	r.ReuseRecord = true
	for {
		if _, err := r.Read(); err == io.EOF {
			break
		} else if err != nil {
			return 0, 0, err
		}
		rows++
	}
	return rows - 1, counted.n, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// heapAlloc is the server's go_memstats_heap_alloc_bytes.
func heapAlloc(ctx context.Context, base string) (int64, error) {
	resp, err := get(ctx, base+"/metrics")
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_heap_alloc_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int64(f), err
		}
	}
	return 0, errors.New("no go_memstats_heap_alloc_bytes in /metrics")
}

// procStatus reads a size in kB of /proc/PID/status (VmRSS, VmHWM) as bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func waitReady(ctx context.Context, base string) error {
	for range 200 {
		if resp, err := get(ctx, base+"/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the server did not get ready in 20 s")
}

func get(ctx context.Context, target string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

func freeAddr(ctx context.Context) (string, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

func minMedian(ds []time.Duration) (time.Duration, time.Duration) {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[0], s[len(s)/2]
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
