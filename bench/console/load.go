package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/acme3pl/fulfillment/bench/internal/loadgen"
)

// page is one URL the benchmark reads, named for the report.
type page struct{ name, path string }

// defaultPages are the pages of §18 on the scale database, with the heavy
// variants of each: the biggest organization's, a page deep in a list, a
// shipment's detail, a finalized invoice's charges, the audit log filtered.
func defaultPages(big int, now time.Time) []page {
	org := "org=" + bigOrg
	lastMonth := time.Date(now.UTC().Year(), now.UTC().Month()-1, 1, 0, 0, 0, 0, time.UTC)
	shipment := fmt.Sprintf("shp_big_%07d", big/2)
	invoice := "inv_big_period_" + lastMonth.Format("200601")
	return []page{
		{"home", "/"},
		{"failed-orders", "/failed-orders"},
		{"failed-orders org", "/failed-orders?" + org},
		{"failed-orders org code", "/failed-orders?" + org + "&code=no_warehouse"},
		{"failed-orders org deep", "/failed-orders?" + org + "&skip=2000"},
		{"failed-order", "/failed-orders?" + org + "&order=90001500"},
		{"shipments", "/shipments"},
		{"shipments org", "/shipments?" + org},
		{"shipments org pending", "/shipments?" + org + "&status=pending"},
		{"shipments org cancelled", "/shipments?" + org + "&status=cancelled"},
		{"shipments org deep", "/shipments?" + org + "&skip=10000"},
		{"shipment", "/shipments?" + org + "&id=" + shipment},
		{"inventory", "/inventory?" + org},
		{"inventory sku", "/inventory?" + org + "&sku=BIG-01"},
		{"inventory cartons", "/inventory?" + org + "&kind=carton"},
		{"inventory ledger", "/inventory?" + org + "&item=prod_big_1"},
		{"inventory ledger deep", "/inventory?" + org + "&item=prod_big_1&skip=5000"},
		{"billing org", "/billing?" + org},
		{"billing invoices deep", "/billing?" + org + "&skip=10000"},
		{"billing invoice", "/billing?" + org + "&invoice=" + invoice},
		{"billing invoice charges deep", "/billing?" + org + "&invoice=" + invoice + "&skip=15000"},
		{"organizations", "/organizations"},
		{"organization", "/organizations?" + org},
		{"audit", "/audit"},
		{"audit org", "/audit?" + org},
		{"audit filtered", "/audit?" + org + "&actor=" + url.QueryEscape("oidc|alice") + "&action=charges.add"},
	}
}

// pageFlags collects -page NAME=PATH: each replaces the default page of that
// name, or adds one.
type pageFlags []page

func (p *pageFlags) String() string { return fmt.Sprint(*p) }
func (p *pageFlags) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || !strings.HasPrefix(path, "/") {
		return fmt.Errorf("-page %q: want NAME=/PATH", v)
	}
	*p = append(*p, page{name, path})
	return nil
}

func load(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	base := fs.String("url", "http://127.0.0.1:18095", "the console's base URL")
	link := fs.String("link", "", "a one-time sign-in URL (fulfillment console link); its session signs every request in")
	cookie := fs.String("cookie", "", "a session cookie NAME=VALUE instead of -link")
	clients := fs.Int("c", 4, "concurrent clients (closed loop)")
	n := fs.Int("n", 200, "measured requests per page")
	warm := fs.Int("warmup", 5, "requests per page before measuring (not counted)")
	bound := fs.Duration("p99", 100*time.Millisecond, "fail when a page's p99 is above this")
	big := fs.Int("big", 900_000, "shipments of the biggest organization (gen -big): names the shipment read")
	only := fs.String("only", "", "a regular expression: measure only the pages whose name it matches")
	except := fs.String("except", "", "a regular expression: leave out the pages whose name it matches")
	var extra pageFlags
	fs.Var(&extra, "page", "NAME=/PATH: a page to read (replaces the default page of that name); repeatable")
	_ = fs.Parse(args)

	pages := defaultPages(*big, time.Now())
	for _, e := range extra {
		replaced := false
		for i := range pages {
			if pages[i].name == e.name {
				pages[i], replaced = e, true
			}
		}
		if !replaced {
			pages = append(pages, e)
		}
	}
	onlyRE, err := regexp.Compile(*only)
	if err != nil {
		return fmt.Errorf("-only: %w", err)
	}
	exceptRE, err := regexp.Compile(*except)
	if err != nil {
		return fmt.Errorf("-except: %w", err)
	}
	pages = slices.DeleteFunc(pages, func(p page) bool { return !onlyRE.MatchString(p.name) || *except != "" && exceptRE.MatchString(p.name) })
	client := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: *clients * 2},
		Timeout:   30 * time.Second,
		// A page that redirects (to the sign-in) is a failure, not a page.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	session := *cookie
	if session == "" {
		if *link == "" {
			return errors.New("-link or -cookie is required")
		}
		if session, err = signIn(ctx, client, *link); err != nil {
			return err
		}
	}
	get := func(p page) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, *base+p.path, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Cookie", session)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s (Location %q)", p.path, resp.Status, resp.Header.Get("Location"))
		}
		return nil
	}
	// Every page once first: a page that does not answer 200 stops the run
	// before it measures anything.
	var broken []string
	for _, p := range pages {
		if err := get(p); err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", p.name, err))
		}
	}
	if len(broken) > 0 {
		return fmt.Errorf("pages that do not answer 200 (-except leaves them out):\n  %s", strings.Join(broken, "\n  "))
	}
	run := func(per int, recs []loadgen.Recorder) time.Duration {
		// The requests of every page shuffled together (interleaved), each
		// client taking the next as soon as its last answered.
		jobs := make([]int, 0, per*len(pages))
		for i := range pages {
			for range per {
				jobs = append(jobs, i)
			}
		}
		r := rand.New(rand.NewPCG(1, uint64(per))) //nolint:gosec // an order of requests, not a secret
		r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		next := make(chan int)
		var wg sync.WaitGroup
		start := time.Now()
		for range *clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					t := time.Now()
					err := get(pages[i])
					if recs != nil {
						recs[i].Record(time.Since(t), err)
					}
				}
			}()
		}
		for _, j := range jobs {
			if ctx.Err() != nil {
				break
			}
			next <- j
		}
		close(next)
		wg.Wait()
		return time.Since(start)
	}
	run(*warm, nil)
	recs := make([]loadgen.Recorder, len(pages))
	elapsed := run(*n, recs)
	if err := ctx.Err(); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "page\tpath\trequests\tfailed\tp50 ms\tp99 ms\tmax ms\t\n")
	var all []time.Duration
	var over []string
	failed := 0
	for i, p := range pages {
		sorted, f, firstErr := recs[i].Done()
		all = append(all, sorted...)
		failed += f
		l := loadgen.Summarize(sorted, elapsed)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t\n", p.name, p.path, len(sorted)+f, f, l.P50, l.P99, l.Max)
		if f > 0 {
			over = append(over, fmt.Sprintf("%s: %d failed (%s)", p.name, f, firstErr))
		}
		if l.P99 > float64(bound.Milliseconds()) {
			over = append(over, fmt.Sprintf("%s: p99 %.1f ms > %s", p.name, l.P99, *bound))
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	l := loadgen.Summarize(all, elapsed)
	fmt.Fprintf(tw, "all\t\t%d\t%d\t%.1f\t%.1f\t%.1f\t\n", len(all)+failed, failed, l.P50, l.P99, l.Max)
	_ = tw.Flush()
	fmt.Printf("\n%d clients, closed loop, pages interleaved: %.0f pages/s over %s\n", *clients, l.Throughput, elapsed.Round(100*time.Millisecond))
	if len(over) > 0 {
		return fmt.Errorf("over the bound:\n  %s", strings.Join(over, "\n  "))
	}
	return nil
}

// signIn opens the one-time link without following its redirect and returns
// the Cookie header of the session it set. Go's cookie jar never sends a
// Secure cookie over http://, and the console's session cookie is Secure
// (__Host-): the benchmark sends it itself, as a browser does to a console
// behind TLS. It checks that the session signs a page in.
func signIn(ctx context.Context, client *http.Client, link string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	var pairs []string
	for _, c := range resp.Cookies() {
		if c.Value != "" {
			pairs = append(pairs, c.Name+"="+c.Value)
		}
	}
	if resp.StatusCode/100 != 3 || len(pairs) == 0 {
		return "", fmt.Errorf("sign-in link: %s with %d cookies; want a redirect that sets the session", resp.Status, len(pairs))
	}
	return strings.Join(pairs, "; "), nil
}
