package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// server is one side of the read benchmark: the service or the baseline.
type server struct {
	name, url, token string
	pid              int // its process, for CPU time; 0: not measured
}

func parseServer(name, v string) (*server, error) {
	parts := strings.Split(v, ",")
	if parts[0] == "" {
		return nil, fmt.Errorf("-%s: want URL[,TOKEN[,PID]]", name)
	}
	s := &server{name: name, url: strings.TrimSuffix(parts[0], "/")}
	if len(parts) > 1 {
		s.token = parts[1]
	}
	if len(parts) > 2 {
		pid, err := strconv.Atoi(parts[2])
		if err != nil {
			return nil, fmt.Errorf("-%s: PID %q", name, parts[2])
		}
		s.pid = pid
	}
	return s, nil
}

// serversFlags is the flag set of a subcommand that measures the service
// against the baseline: -service and -baseline (their usage in the
// subcommand's words), and -details.
type serversFlags struct {
	*flag.FlagSet
	service, baseline *string
	details           *int
}

func newServersFlags(name, serviceUsage, baselineUsage string) *serversFlags {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	return &serversFlags{FlagSet: fs,
		service:  fs.String("service", "", serviceUsage),
		baseline: fs.String("baseline", "", baselineUsage),
		details:  fs.Int("details", 200, "invoices of the detail workload, spread over the organization"),
	}
}

// parse parses args and reads the -service and -baseline flags.
func (f *serversFlags) parse(args []string) (service, baseline *server, err error) {
	_ = f.Parse(args)
	if service, err = parseServer("service", *f.service); err != nil {
		return nil, nil, err
	}
	baseline, err = parseServer("baseline", *f.baseline)
	return service, baseline, err
}

// workload is a list of request paths that the clients walk round-robin.
type workload struct {
	name  string
	paths []string
}

// reads runs the read benchmark of issue 13: the service and the baseline
// (bench/baseline) on the same database, each answering the same requests
// in a closed loop of the same clients, alternately, round after round.
func reads(ctx context.Context, args []string) error {
	fs := newServersFlags("reads", "URL,TOKEN[,PID] of the running service", "URL[,,PID] of the running baseline")
	clients := fs.Int("clients", 8, "concurrent clients, each sending its next request when the last is answered")
	duration := fs.Duration("duration", 10*time.Second, "measured time per workload, server and round")
	warmup := fs.Duration("warmup", 2*time.Second, "unmeasured time before each measurement")
	rounds := fs.Int("rounds", 5, "rounds; each measures every workload on both servers, alternating which goes first")
	service, baseline, err := fs.parse(args)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 2 * *clients, MaxIdleConnsPerHost: *clients, IdleConnTimeout: time.Minute,
	}}

	workloads, err := readWorkloads(ctx, client, service, *fs.details)
	if err != nil {
		return err
	}
	list, detail := workloads[0].paths, workloads[1].paths

	// Same bytes, or the comparison means nothing: every list shape of the
	// benchmark (searches excepted: the baseline does not serve them), a
	// deep page, and every invoice of the detail workload.
	compare := append(slices.Clone(list), "/v0/invoices?skip=10000", "/v0/invoices?take=3&status=paid&sortBy=dueDate&sortOrder=asc")
	compare = append(compare, detail...)
	for _, path := range compare {
		if err := sameAnswer(ctx, client, service, baseline, path); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "reads: %d requests answered byte for byte alike by both servers\n", len(compare))

	type result struct {
		n         int
		elapsed   time.Duration
		lat       []time.Duration
		cpu, self time.Duration // CPU time of the server's process and of this one
		perRound  []float64     // requests per second
	}
	results := map[string]map[string]*result{}
	for _, w := range workloads {
		results[w.name] = map[string]*result{service.name: {}, baseline.name: {}}
	}
	start := time.Now()
	for round := range *rounds {
		for _, w := range workloads {
			order := []*server{service, baseline}
			if round%2 == 1 {
				order = []*server{baseline, service}
			}
			for _, s := range order {
				if _, _, err := closedLoop(ctx, client, s, w.paths, *clients, *warmup); err != nil {
					return fmt.Errorf("%s %s warm-up: %w", s.name, w.name, err)
				}
				cpu0, self0 := cpuTime(s.pid), cpuTime(os.Getpid())
				lat, elapsed, err := closedLoop(ctx, client, s, w.paths, *clients, *duration)
				if err != nil {
					return fmt.Errorf("%s %s: %w", s.name, w.name, err)
				}
				cpu, self := cpuTime(s.pid)-cpu0, cpuTime(os.Getpid())-self0
				r := results[w.name][s.name]
				r.n += len(lat)
				r.elapsed += elapsed
				r.lat = append(r.lat, lat...)
				r.cpu += cpu
				r.self += self
				r.perRound = append(r.perRound, float64(len(lat))/elapsed.Seconds())
				fmt.Fprintf(os.Stderr, "reads: round %d %s %s: %.0f/s, p99 %.2f ms, load average %s\n", round+1, w.name, s.name,
					float64(len(lat))/elapsed.Seconds(), ms(pct(lat, 99)), loadAverage())
			}
		}
	}

	fmt.Printf("Reads against the baseline: %d clients in a closed loop, %d rounds of %s per workload and server "+
		"(after %s of warm-up each), the servers alternating; %s in all, ended %s, load average %s\n\n",
		*clients, *rounds, *duration, *warmup, time.Since(start).Round(time.Second), time.Now().UTC().Format(time.RFC3339), loadAverage())
	fmt.Println("| workload | service req/s | baseline req/s | **throughput ratio** (per round) | service p50 / p99 ms | baseline p50 / p99 ms | **p99 ratio** | CPU µs per request: service / baseline (load generator) |")
	fmt.Println("|---|---:|---:|---|---:|---:|---:|---:|")
	for _, w := range workloads {
		s, b := results[w.name][service.name], results[w.name][baseline.name]
		sr, br := float64(s.n)/s.elapsed.Seconds(), float64(b.n)/b.elapsed.Seconds()
		perRound := make([]string, len(s.perRound))
		for i := range s.perRound {
			perRound[i] = fmt.Sprintf("%.2f", s.perRound[i]/b.perRound[i])
		}
		perReq := func(d time.Duration, n int) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/float64(n)) }
		cpu := "—"
		if service.pid != 0 && baseline.pid != 0 {
			cpu = perReq(s.cpu, s.n) + " / " + perReq(b.cpu, b.n)
		}
		cpu += " (" + perReq(s.self, s.n) + " / " + perReq(b.self, b.n) + ")"
		fmt.Printf("| %s (%d paths) | %.0f | %.0f | **%.2f** (%s) | %.2f / %.2f | %.2f / %.2f | **%.2f** | %s |\n",
			w.name, len(w.paths), sr, br, sr/br, strings.Join(perRound, ", "),
			ms(pct(s.lat, 50)), ms(pct(s.lat, 99)), ms(pct(b.lat, 50)), ms(pct(b.lat, 99)),
			float64(pct(s.lat, 99))/float64(pct(b.lat, 99)), cpu)
	}
	fmt.Fprintln(os.Stderr, "reads: done")
	return nil
}

// readWorkloads are the benchmark's two workloads. list: the first page
// of every list shape without a search term (the baseline serves none) or
// a skip; detail: n invoices spread over the organization, found through s.
func readWorkloads(ctx context.Context, c *http.Client, s *server, n int) ([]workload, error) {
	var list []string
	for _, sh := range shapes() {
		if sh.detail || sh.query.Has("search") || sh.query.Has("skip") {
			continue
		}
		list = append(list, "/v0/invoices"+encodeQuery(sh))
	}
	detail, err := detailPaths(ctx, c, s, n)
	if err != nil {
		return nil, err
	}
	return []workload{{"list", list}, {"detail", detail}}, nil
}

func encodeQuery(s shape) string {
	if len(s.query) == 0 {
		return ""
	}
	return "?" + s.query.Encode()
}

// detailPaths returns n invoice paths spread over the organization's
// invoices, newest to oldest.
func detailPaths(ctx context.Context, c *http.Client, s *server, n int) ([]string, error) {
	var total []struct {
		ID string `json:"id"`
	}
	// The organization's size, roughly: walk skips by powers of ten.
	size := 0
	for skip := 1; skip <= 1_000_000; skip *= 10 {
		if err := getJSON(ctx, c, s, fmt.Sprintf("/v0/invoices?skip=%d&take=1", skip), &total); err != nil {
			return nil, err
		}
		if len(total) == 0 {
			break
		}
		size = skip
	}
	if size < n {
		return nil, fmt.Errorf("the organization holds fewer than %d visible invoices; run gen first", n)
	}
	paths := make([]string, 0, n)
	for i := range n {
		var page []struct {
			ID string `json:"id"`
		}
		if err := getJSON(ctx, c, s, fmt.Sprintf("/v0/invoices?skip=%d&take=1", i*(size/n)), &page); err != nil {
			return nil, err
		}
		if len(page) != 1 {
			return nil, fmt.Errorf("no invoice at skip %d", i*(size/n))
		}
		paths = append(paths, "/v0/invoices/"+page[0].ID)
	}
	return paths, nil
}

// getJSON sends one GET, authorized with s's token if any, and checks for
// 200; v, when not nil, receives the body.
func getJSON(ctx context.Context, c *http.Client, s *server, path string, v any) error {
	status, _, body, err := fetch(ctx, c, s, path)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("%s GET %s: %d %s", s.name, path, status, body)
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal(body, v)
}

func fetch(ctx context.Context, c *http.Client, s *server, path string) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+path, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body, err
}

// sameAnswer fails unless both servers answer path with 200, the same
// Content-Type and Link, and the same body, byte for byte.
func sameAnswer(ctx context.Context, c *http.Client, a, b *server, path string) error {
	sa, ha, ba, err := fetch(ctx, c, a, path)
	if err != nil {
		return err
	}
	sb, hb, bb, err := fetch(ctx, c, b, path)
	if err != nil {
		return err
	}
	switch {
	case sa != http.StatusOK || sb != http.StatusOK:
		return fmt.Errorf("GET %s: %s %d, %s %d", path, a.name, sa, b.name, sb)
	case ha.Get("Content-Type") != hb.Get("Content-Type") || ha.Get("Link") != hb.Get("Link"):
		return fmt.Errorf("GET %s: headers differ: %s %q %q, %s %q %q", path, a.name, ha.Get("Content-Type"), ha.Get("Link"),
			b.name, hb.Get("Content-Type"), hb.Get("Link"))
	case !bytes.Equal(ba, bb):
		i := 0
		for i < min(len(ba), len(bb)) && ba[i] == bb[i] {
			i++
		}
		return fmt.Errorf("GET %s: bodies differ at byte %d:\n%s: …%s\n%s: …%s", path, i,
			a.name, excerpt(ba, i), b.name, excerpt(bb, i))
	}
	return nil
}

func excerpt(b []byte, i int) string { return string(b[max(i-40, 0):min(i+80, len(b))]) }

// closedLoop runs clients that each send the next request of paths when the
// last is answered, for d, and returns the latencies.
func closedLoop(ctx context.Context, c *http.Client, s *server, paths []string, clients int, d time.Duration) ([]time.Duration, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	deadline := time.Now().Add(d)
	lats := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reqs := make([]*http.Request, len(paths))
			for j, p := range paths {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+p, nil)
				if err != nil {
					errs[i] = err
					return
				}
				if s.token != "" {
					req.Header.Set("Authorization", "Bearer "+s.token)
				}
				reqs[j] = req
			}
			for j := i; time.Now().Before(deadline); j++ {
				t0 := time.Now()
				resp, err := c.Do(reqs[j%len(reqs)])
				if err != nil {
					errs[i] = err
					cancel()
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("GET %s: %d", paths[j%len(paths)], resp.StatusCode)
				}
				if err != nil {
					errs[i] = err
					cancel()
					return
				}
				lats[i] = append(lats[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	return slices.Concat(lats...), elapsed, nil
}

// cpuTime is the user + system CPU time of process pid so far (0 when pid is
// 0 or unreadable).
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th, in clock ticks (100 per second).
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
