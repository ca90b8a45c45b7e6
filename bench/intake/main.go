// Command intake is the load generator of the order intake benchmark
// (docs/benchmarks/intake.md): it delivers distinct, valid storefront orders
// to a running server and reports throughput and latency percentiles.
//
// Closed loop (the default): -c workers each send one order after the other
// for -d, which measures the maximum rate. Open loop (-rate R): orders are
// scheduled at R per second whatever the answers, and each latency counts
// from the order's scheduled time, so a stall is not hidden by the workers
// waiting on it (no coordinated omission).
//
// main.go holds the options, the two loops and the client; orders.go the
// orders and the fixture; bench/internal/proccpu reads the CPU times from
// /proc, and bench/internal/loadgen sums up the answers.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acme3pl/fulfillment/bench/internal/loadgen"
	"github.com/acme3pl/fulfillment/bench/internal/proccpu"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "intake:", err)
		os.Exit(1)
	}
}

type options struct {
	url, key    string
	workers     int
	duration    time.Duration
	warmup      time.Duration
	rate        float64
	skus, lines int
	skuFormat   string
	payload     string
	jsonOut     bool
	fixture     bool
	serverPID   int
	pgPID       int
	pgDB        string
	watch       bool
}

func run() error {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:8080", "base URL of the server")
	flag.StringVar(&o.key, "key", os.Getenv("INTAKE_API_KEY"), "API key (default $INTAKE_API_KEY, else the fixture's BenchKey)")
	flag.IntVar(&o.workers, "c", 8, "concurrent clients")
	flag.DurationVar(&o.duration, "d", 20*time.Second, "measured duration")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured warm-up before the measurement")
	flag.Float64Var(&o.rate, "rate", 0, "orders per second (open loop); 0 sends as fast as the clients can")
	flag.IntVar(&o.skus, "skus", 1000, "size of the SKU pool (SKUs 1..skus must be seeded)")
	flag.IntVar(&o.lines, "lines", 3, "line items per order")
	flag.StringVar(&o.skuFormat, "sku-format", "BENCH-%05d", "fmt format of a SKU from its number")
	flag.StringVar(&o.payload, "payload", "docs/samples/orders-create.json",
		"a storefront order whose shape every order copies (its line items cycled to -lines); \"trimmed\" for a 1.5 KB order")
	flag.BoolVar(&o.jsonOut, "json", false, "print the result as one JSON object")
	flag.IntVar(&o.serverPID, "pid", 0, "the server's process ID, to report its CPU time per order too (Linux)")
	flag.IntVar(&o.pgPID, "pg-pid", 0, "PostgreSQL's postmaster, to report PostgreSQL's CPU time per order (Linux): the whole server's, and with -pg-db that of the backends of one database")
	flag.StringVar(&o.pgDB, "pg-db", "", "the database whose backends' CPU time is reported (with -pg-pid)")
	flag.BoolVar(&o.watch, "watch-pg", false, "no orders: watch -pg-pid's CPU time until SIGINT or SIGTERM, then print µs used by -pg-db's backends and by the whole server")
	flag.BoolVar(&o.fixture, "print-fixture", false, "print the benchmark's fixture document (fulfillment seed --file) and exit")
	flag.Parse()
	if o.fixture {
		return printFixture(os.Stdout, o)
	}
	if o.watch {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		g := &generator{o: o}
		end := g.watchPG(ctx)
		<-ctx.Done()
		db, server := end()
		_, err := fmt.Println(db.Microseconds(), server.Microseconds())
		return err
	}
	if o.key == "" {
		o.key = BenchKey
	}
	if o.workers < 1 || o.lines < 1 || o.skus < o.lines {
		return errors.New("need -c ≥ 1, -lines ≥ 1 and -skus ≥ -lines")
	}
	var tmpl *orderTemplate
	if o.payload != "trimmed" {
		var err error
		if tmpl, err = loadTemplate(o.payload, o.lines); err != nil {
			return err
		}
	}
	g, err := newGenerator(o, tmpl)
	if err != nil {
		return err
	}
	// Order IDs above 2^53, distinct from every earlier run.
	g.nextID.Store(time.Now().UnixMicro() * 1000)
	if o.warmup > 0 {
		if _, err := g.phase(o.warmup); err != nil {
			return err
		}
	}
	res, err := g.phase(o.duration)
	if err != nil {
		return err
	}
	return res.print(os.Stdout, o)
}

// newGenerator returns the generator of o's orders (tmpl nil: the trimmed
// order) to the server at o.url.
func newGenerator(o options, tmpl *orderTemplate) (*generator, error) {
	u, err := url.Parse(o.url)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("-url %q: want http://host:port", o.url)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &generator{o: o, tmpl: tmpl, addr: addr,
		head: "POST " + strings.TrimSuffix(u.Path, "/") + "/v0/storefront/orders HTTP/1.1\r\nHost: " + u.Host +
			"\r\nContent-Type: application/json\r\nAuthorization: Bearer " + o.key + "\r\nContent-Length: "}, nil
}

type generator struct {
	o      options
	tmpl   *orderTemplate // nil: the trimmed order
	addr   string         // the server's host:port
	head   string         // a request up to its Content-Length's value
	nextID atomic.Int64
}

type result struct {
	Sent    int           `json:"sent"`
	OK      int           `json:"ok"`
	Failed  int           `json:"failed"`
	Elapsed time.Duration `json:"-"`
	loadgen.Latencies
	// CPU time per order, µs: the load generator's own, the server's with
	// -pid, and PostgreSQL's with -pg-pid: the backends' of -pg-db and the
	// whole server's (the postmaster and its children, those of other
	// databases included).
	CPU        float64 `json:"cpu_us_per_order"`
	ServerCPU  float64 `json:"server_cpu_us_per_order,omitempty"`
	PGCPU      float64 `json:"pg_cpu_us_per_order,omitempty"`
	PGServer   float64 `json:"pg_server_cpu_us_per_order,omitempty"`
	FirstError string  `json:"first_error,omitempty"`
}

// watchPG starts following PostgreSQL's CPU time until ctx ends; the
// function it returns waits for that and returns the CPU time -pg-db's
// backends and the whole server used meanwhile (zeros without -pg-pid).
func (g *generator) watchPG(ctx context.Context) func() (db, server time.Duration) {
	if g.o.pgPID == 0 {
		return func() (time.Duration, time.Duration) { return 0, 0 }
	}
	server0 := proccpu.TreeCPUTime(g.o.pgPID)
	w := proccpu.NewBackendWatch(g.o.pgPID, g.o.pgDB)
	done := make(chan time.Duration, 1)
	go func() { done <- w.Watch(ctx, 50*time.Millisecond) }()
	return func() (time.Duration, time.Duration) {
		db := <-done
		return db, proccpu.TreeCPUTime(g.o.pgPID) - server0
	}
}

// phase sends orders for d and collects what happened.
func (g *generator) phase(d time.Duration) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var rec loadgen.Recorder
	self := os.Getpid()
	cpu0, serverCPU0 := proccpu.CPUTime(self), proccpu.CPUTime(g.o.serverPID)
	pgCtx, pgStop := context.WithCancel(context.Background())
	pgEnd := g.watchPG(pgCtx)
	start := time.Now()
	var wg sync.WaitGroup
	// work runs worker w's loop on a client and a random source of its own.
	work := func(w int, loop func(c *client, rng *rand.Rand)) {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano()))) //nolint:gosec // load shape, not secrets
			c := &client{g: g}
			defer c.close()
			loop(c, rng)
		})
	}
	if g.o.rate <= 0 {
		for w := 0; w < g.o.workers; w++ {
			work(w, func(c *client, rng *rand.Rand) {
				for ctx.Err() == nil {
					t0 := time.Now()
					err := c.deliver(rng)
					if ctx.Err() != nil && err != nil {
						return
					}
					rec.Record(time.Since(t0), err)
				}
			})
		}
	} else {
		jobs := make(chan time.Time, 100_000)
		for w := 0; w < g.o.workers; w++ {
			work(w, func(c *client, rng *rand.Rand) {
				for due := range jobs {
					err := c.deliver(rng)
					rec.Record(time.Since(due), err)
				}
			})
		}
		loadgen.Schedule(jobs, start, g.o.rate, d, nil)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu, serverCPU := proccpu.CPUTime(self)-cpu0, proccpu.CPUTime(g.o.serverPID)-serverCPU0
	pgStop()
	pgCPU, pgServer := pgEnd()
	latencies, failed, firstErr := rec.Done()
	res := result{Sent: len(latencies) + failed, OK: len(latencies), Failed: failed, Elapsed: elapsed, FirstError: firstErr,
		Latencies: loadgen.Summarize(latencies, elapsed)}
	if len(latencies) > 0 {
		res.CPU = float64(cpu.Microseconds()) / float64(len(latencies))
		res.ServerCPU = float64(serverCPU.Microseconds()) / float64(len(latencies))
		res.PGCPU = float64(pgCPU.Microseconds()) / float64(len(latencies))
		res.PGServer = float64(pgServer.Microseconds()) / float64(len(latencies))
	}
	return res, nil
}

func (r result) print(w io.Writer, o options) error {
	if o.jsonOut {
		return json.NewEncoder(w).Encode(r)
	}
	mode := "closed loop"
	if o.rate > 0 {
		mode = fmt.Sprintf("open loop at %.0f/s", o.rate)
	}
	_, err := fmt.Fprintf(w, "intake: %s, %d clients, %s: %d ok, %d failed, %.1f orders/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms; CPU per order: %.0f µs in the load generator",
		mode, o.workers, r.Elapsed.Round(time.Millisecond), r.OK, r.Failed, r.Throughput, r.P50, r.P99, r.P999, r.Max, r.CPU)
	if err == nil && o.serverPID != 0 {
		_, err = fmt.Fprintf(w, ", %.0f µs in the server", r.ServerCPU)
	}
	if err == nil && o.pgPID != 0 {
		_, err = fmt.Fprintf(w, ", %.0f µs in PostgreSQL (%.0f µs in %s's backends)", r.PGServer, r.PGCPU, o.pgDB)
	}
	if err == nil {
		_, err = fmt.Fprintln(w)
	}
	if err == nil && r.FirstError != "" {
		_, err = fmt.Fprintf(w, "intake: first error: %s\n", r.FirstError)
	}
	return err
}

// A client is one worker's kept-alive HTTP/1.1 connection. It writes each
// request whole, in one write, and reads the answer with net/http's own
// parser. net/http's client passes every request between three goroutines
// (the caller's and the connection's writer and reader) and costs nearly
// twice the CPU per order (docs/benchmarks/intake.md), CPU that the server
// and PostgreSQL share on the benchmark's machine while pgbench's client is
// cheap C.
type client struct {
	g    *generator
	conn net.Conn // nil until the first delivery, and after an error
	br   *bufio.Reader
	req  []byte // the request being written, reused
}

// deliver sends one new order with -lines distinct random SKUs and checks
// that it made a shipment.
func (c *client) deliver(rng *rand.Rand) error {
	id := c.g.nextID.Add(1)
	body := c.g.order(rng, id)
	if c.conn == nil {
		conn, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(context.Background(), "tcp", c.g.addr)
		if err != nil {
			return err
		}
		c.conn, c.br = conn, bufio.NewReader(conn)
	}
	if err := c.conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		c.close()
		return err
	}
	c.req = append(append(append(append(c.req[:0], c.g.head...), strconv.Itoa(len(body))...), "\r\n\r\n"...), body...)
	if _, err := c.conn.Write(c.req); err != nil {
		c.close()
		return err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.close()
		return err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.Close {
		c.close()
	}
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"shipmentId":"shp_`)) {
		return fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	return nil
}

func (c *client) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}
