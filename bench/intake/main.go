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
// It is one file of about 400 lines on purpose: the options, the two loops,
// the order template and the fixture are read together when a figure of
// the benchmark is in doubt.
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
	flag.BoolVar(&o.fixture, "print-fixture", false, "print the benchmark's fixture document (fulfillment seed --file) and exit")
	flag.Parse()
	if o.fixture {
		return printFixture(os.Stdout, o)
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
	Sent       int           `json:"sent"`
	OK         int           `json:"ok"`
	Failed     int           `json:"failed"`
	Elapsed    time.Duration `json:"-"`
	Throughput float64       `json:"throughput"`
	P50        float64       `json:"p50_ms"`
	P99        float64       `json:"p99_ms"`
	P999       float64       `json:"p999_ms"`
	Max        float64       `json:"max_ms"`
	// CPU time per order, µs: the load generator's own, and the server's
	// with -pid.
	CPU        float64 `json:"cpu_us_per_order"`
	ServerCPU  float64 `json:"server_cpu_us_per_order,omitempty"`
	FirstError string  `json:"first_error,omitempty"`
}

// phase sends orders for d and collects what happened.
func (g *generator) phase(d time.Duration) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failed    int
		firstErr  string
	)
	record := func(lat time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed++
			if firstErr == "" {
				firstErr = err.Error()
			}
			return
		}
		latencies = append(latencies, lat)
	}
	self := os.Getpid()
	cpu0, serverCPU0 := cpuTime(self), cpuTime(g.o.serverPID)
	start := time.Now()
	var wg sync.WaitGroup
	if g.o.rate <= 0 {
		for w := 0; w < g.o.workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano()))) //nolint:gosec // load shape, not secrets
				c := &client{g: g}
				defer c.close()
				for ctx.Err() == nil {
					t0 := time.Now()
					err := c.deliver(rng)
					if ctx.Err() != nil && err != nil {
						return
					}
					record(time.Since(t0), err)
				}
			}()
		}
	} else {
		interval := time.Duration(float64(time.Second) / g.o.rate)
		jobs := make(chan time.Time, 100_000)
		for w := 0; w < g.o.workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano()))) //nolint:gosec // load shape, not secrets
				c := &client{g: g}
				defer c.close()
				for due := range jobs {
					err := c.deliver(rng)
					record(time.Since(due), err)
				}
			}()
		}
		for i := 0; ; i++ {
			due := start.Add(time.Duration(i) * interval)
			if due.Sub(start) >= d {
				break
			}
			if wait := time.Until(due); wait > 0 {
				time.Sleep(wait)
			}
			jobs <- due
		}
		close(jobs)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu, serverCPU := cpuTime(self)-cpu0, cpuTime(g.o.serverPID)-serverCPU0
	slices.Sort(latencies)
	res := result{Sent: len(latencies) + failed, OK: len(latencies), Failed: failed, Elapsed: elapsed, FirstError: firstErr}
	res.Throughput = float64(len(latencies)) / elapsed.Seconds()
	res.P50, res.P99, res.P999 = pct(latencies, 0.50), pct(latencies, 0.99), pct(latencies, 0.999)
	if len(latencies) > 0 {
		res.Max = ms(latencies[len(latencies)-1])
		res.CPU = float64(cpu.Microseconds()) / float64(len(latencies))
		res.ServerCPU = float64(serverCPU.Microseconds()) / float64(len(latencies))
	}
	return res, nil
}

// cpuTime returns the CPU time, user and system, that process pid has used
// so far: from /proc, in the kernel's clock ticks of 10 ms; 0 when it
// cannot be read (pid 0: no server named).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// After the command's name in parentheses: state, then utime and stime
	// as the 12th and 13th fields.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func pct(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return ms(sorted[min(max(i, 0), len(sorted)-1)])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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

// order writes a storefront order with its own id and -lines distinct
// random SKUs: a copy of the template, or a trimmed order of the sample's
// shape (about 1.5 KB) without one.
func (g *generator) order(rng *rand.Rand, id int64) []byte {
	picked := make([]int, 0, g.o.lines)
	for len(picked) < g.o.lines {
		n := 1 + rng.IntN(g.o.skus)
		if !slices.Contains(picked, n) {
			picked = append(picked, n)
		}
	}
	if g.tmpl != nil {
		return g.tmpl.order(id, picked, g.o.skuFormat, rng)
	}
	var b bytes.Buffer
	b.Grow(1200 + 600*g.o.lines)
	ids, num := strconv.FormatInt(id, 10), strconv.FormatInt(1000+id%1_000_000, 10)
	b.WriteString(`{"id":` + ids + `,"admin_graphql_api_id":"gid://shopify/Order/` + ids + `","name":"#` + num +
		`","order_number":` + num + `,"email":"zoe.mueller@example.de","created_at":"2025-03-14T10:21:07+01:00",` +
		`"cancelled_at":null,"test":false,"currency":"EUR","total_price":"159.30","financial_status":"paid",` +
		`"note":"Bitte beim Nachbarn abgeben 🙏","tags":"","line_items":[`)
	for i, n := range picked {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"product_id":8930509029688,"variant_id":46734784364693,"title":"Merino Crew Sock",`+
			`"name":"Merino Crew Sock - Charcoal / 43-46","sku":"`+g.o.skuFormat+`","vendor":"Example Knitwear","quantity":%d,`+
			`"requires_shipping":true,"gift_card":false,"taxable":true,"grams":350,"price":"49.95",`+
			`"tax_lines":[{"title":"DE MwSt","rate":0.19,"price":"7.98"}],"properties":[]}`,
			id*10+int64(i), n, 1+rng.IntN(3))
	}
	b.WriteString(`],"shipping_address":{"first_name":"Zoë","last_name":"Müller","name":"Zoë Müller","company":null,` +
		`"address1":"Straße des 17. Juni 135","address2":null,"city":"Berlin","province":null,"province_code":null,` +
		`"zip":"10623","country":"Germany","country_code":"DE","phone":"+49 30 1234567"},` +
		`"customer":{"id":7421903112345,"email":"zoe.mueller@example.de","first_name":"Zoë","last_name":"Müller"}}`)
	return b.Bytes()
}

// orderTemplate is a storefront order with placeholders where each order
// differs: its id, its number, and each line item's id, SKU and quantity.
type orderTemplate struct {
	parts []string   // the text between placeholders
	slots []slotName // the placeholder after each part
}

// slotName is a placeholder: field "id" or "number" of the order, or
// "id", "sku" or "quantity" of line item line (line ≥ 0).
type slotName struct {
	line  int
	field string
}

// loadTemplate reads a sample order and makes its template of lines line
// items, the sample's own cycled.
func loadTemplate(path string, lines int) (*orderTemplate, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the payload sample: %w", err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sample, _ := doc["line_items"].([]any)
	if len(sample) == 0 {
		return nil, fmt.Errorf("%s has no line_items", path)
	}
	// Placeholders are strings starting with U+0001, which json.Marshal
	// writes as the six characters \u0001: nothing in a real order looks
	// like that.
	const mark = "\x01"
	doc["id"] = mark + "id"
	doc["order_number"] = mark + "number"
	items := make([]any, lines)
	for i := range items {
		item := map[string]any{}
		for k, v := range sample[i%len(sample)].(map[string]any) {
			item[k] = v
		}
		for _, k := range []string{"id", "sku", "quantity"} {
			item[k] = fmt.Sprintf("%sline:%d:%s", mark, i, k)
		}
		items[i] = item
	}
	doc["line_items"] = items
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	t := &orderTemplate{}
	rest, open := string(b), `"\u0001`
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			t.parts = append(t.parts, rest)
			return t, nil
		}
		j := strings.IndexByte(rest[i+len(open):], '"')
		name := slotName{line: -1, field: rest[i+len(open) : i+len(open)+j]}
		if _, err := fmt.Sscanf(name.field, "line:%d:%s", &name.line, &name.field); err != nil {
			name.line = -1
		}
		t.parts = append(t.parts, rest[:i])
		t.slots = append(t.slots, name)
		rest = rest[i+len(open)+j+1:]
	}
}

// order fills the template.
func (t *orderTemplate) order(id int64, skus []int, skuFormat string, rng *rand.Rand) []byte {
	var b bytes.Buffer
	for i, part := range t.parts {
		b.WriteString(part)
		if i == len(t.slots) {
			break
		}
		switch slot := t.slots[i]; {
		case slot.line < 0 && slot.field == "id":
			b.WriteString(strconv.FormatInt(id, 10))
		case slot.line < 0 && slot.field == "number":
			b.WriteString(strconv.FormatInt(1000+id%1_000_000, 10))
		case slot.field == "id":
			b.WriteString(strconv.FormatInt(id*10+int64(slot.line), 10))
		case slot.field == "sku":
			b.WriteString(strconv.Quote(fmt.Sprintf(skuFormat, skus[slot.line])))
		case slot.field == "quantity":
			b.WriteString(strconv.Itoa(1 + rng.IntN(3)))
		}
	}
	return b.Bytes()
}

// BenchKey is the sandbox API key of the benchmark's fixture.
const BenchKey = "fk_test_BenchIntake0123456789abcdefghijklmnopqrstuv"

// printFixture writes the fixture of the benchmark: organization
// org_bench with warehouse wh_bench, products prod_bench_1..N with SKUs
// -sku-format of 1..N, and the API key BenchKey.
func printFixture(w io.Writer, o options) error {
	products := make([]map[string]any, o.skus)
	for i := range products {
		products[i] = map[string]any{"id": fmt.Sprintf("prod_bench_%d", i+1), "organizationId": "org_bench",
			"sku": fmt.Sprintf(o.skuFormat, i+1), "name": "Bench product"}
	}
	doc := map[string]any{
		"organizations": []any{map[string]any{"id": "org_bench", "name": "Bench", "defaultWarehouseId": "wh_bench"}},
		"warehouses": []any{map[string]any{
			"id": "wh_bench", "name": "Bench DC", "description": nil, "active": true, "tags": []string{}, "organizations": []string{"org_bench"},
			"address": map[string]any{"name": "Bench DC", "line1": "1 Dock St", "line2": "", "district": "", "city": "Newark",
				"state": "NJ", "countryCode": "US", "postalCode": "07102"},
			"contact": map[string]any{"name": "Ops", "email": "ops@example.com", "phoneNumber": "+1 555 0100", "fax": ""},
		}},
		"products": products,
		"apiKeys": []any{map[string]any{"id": "key_bench", "organizationId": "org_bench", "key": BenchKey,
			"scopes": []string{"shipments", "inventory"}, "revoked": false}},
	}
	return json.NewEncoder(w).Encode(doc)
}
