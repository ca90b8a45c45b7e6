package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// target is a running server and an access token of the organization to
// measure.
type target struct {
	server
	detailID string
	lat      map[string][]time.Duration
}

type targetFlags []*target

func (t *targetFlags) String() string { return fmt.Sprint(len(*t), " targets") }

// Set reads NAME=URL,TOKEN.
func (t *targetFlags) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	u, tok, ok2 := strings.Cut(rest, ",")
	if !ok || !ok2 || name == "" || u == "" || tok == "" {
		return errors.New("want NAME=URL,TOKEN")
	}
	*t = append(*t, &target{server: server{name: name, url: strings.TrimSuffix(u, "/"), token: tok}, lat: map[string][]time.Duration{}})
	return nil
}

func load(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	var targets targetFlags
	fs.Var(&targets, "target", "NAME=URL,TOKEN of a running server (repeat; the first is the baseline of the ratio)")
	n := fs.Int("n", 300, "measured requests per shape and target")
	warmup := fs.Int("warmup", 20, "unmeasured requests per shape and target first")
	_ = fs.Parse(args)
	if len(targets) == 0 {
		return errors.New("give at least one -target NAME=URL,TOKEN")
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for _, t := range targets {
		var page []struct {
			ID string `json:"id"`
		}
		if err := getJSON(ctx, client, &t.server, "/v0/invoices?skip=100&take=1", &page); err != nil {
			return fmt.Errorf("%s: find an invoice for the detail shape: %w", t.name, err)
		}
		if len(page) != 1 {
			return fmt.Errorf("%s: the organization holds fewer than 101 visible invoices", t.name)
		}
		t.detailID = page[0].ID
	}
	sh := shapes()
	path := func(t *target, s shape) string {
		if s.detail {
			return "/v0/invoices/" + t.detailID
		}
		if len(s.query) == 0 {
			return "/v0/invoices"
		}
		return "/v0/invoices?" + s.query.Encode()
	}
	// Rounds interleave shapes and targets, so that whatever else the
	// machine does at a moment weighs on every shape and target alike.
	start := time.Now()
	for round := range *warmup + *n {
		for _, s := range sh {
			for _, t := range targets {
				t0 := time.Now()
				if err := getJSON(ctx, client, &t.server, path(t, s), nil); err != nil {
					return fmt.Errorf("%s %s: %w", t.name, s.name, err)
				}
				if round >= *warmup {
					t.lat[s.name] = append(t.lat[s.name], time.Since(t0))
				}
			}
		}
	}
	fmt.Printf("Latency through HTTP (one client, sequential requests, keep-alive), %d measured requests per shape and target "+
		"after %d warm-up, rounds interleaved; %s, %s\n\n", *n, *warmup, time.Since(start).Round(time.Second), time.Now().UTC().Format(time.RFC3339))
	head := "| shape |"
	sep := "|---|"
	for _, t := range targets {
		head += fmt.Sprintf(" %s p50 ms | %s p99 ms |", t.name, t.name)
		sep += "---:|---:|"
	}
	for _, t := range targets[1:] {
		head += fmt.Sprintf(" p99 %s / %s |", t.name, targets[0].name)
		sep += "---:|"
	}
	fmt.Println(head)
	fmt.Println(sep)
	for _, s := range sh {
		row := "| " + s.name + " |"
		for _, t := range targets {
			row += fmt.Sprintf(" %.2f | %.2f |", ms(pct(t.lat[s.name], 50)), ms(pct(t.lat[s.name], 99)))
		}
		base := pct(targets[0].lat[s.name], 99)
		for _, t := range targets[1:] {
			row += fmt.Sprintf(" %.2f |", float64(pct(t.lat[s.name], 99))/float64(base))
		}
		fmt.Println(row)
	}
	fmt.Fprintln(os.Stderr, "load: done")
	return nil
}

// pct is the p-th percentile (nearest rank) of d.
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100 // ceil(len × p / 100)
	return s[max(i-1, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
