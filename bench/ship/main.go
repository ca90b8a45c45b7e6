// Command ship is the load generator of the warehouse's ship benchmark
// (docs/benchmarks.md, "The warehouse's loop"): it ships pending shipments
// named PREFIX + N, N = -start, -start+1, … (each once), with a warehouse's
// token, and reports throughput and latency percentiles as one JSON object.
//
// Closed loop (the default): -c workers each ship one shipment after the
// other for -d: the maximum rate. Open loop (-rate R): ships are scheduled
// at R per second whatever the answers, and each latency counts from its
// scheduled time (no coordinated omission). It stops early when the pool
// (-n shipments from -start) is used up.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acme3pl/fulfillment/bench/internal/loadgen"
)

type options struct {
	url, token, prefix string
	start, n, workers  int
	duration           time.Duration
	rate               float64
}

type result struct {
	Sent       int    `json:"sent"` // shipment numbers used, answered or not
	OK         int    `json:"ok"`
	Failed     int    `json:"failed"`
	FirstError string `json:"first_error,omitempty"`
	loadgen.Latencies
	Exhausted bool `json:"exhausted"` // the pool ran out before -d
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:8080", "base URL of the server")
	flag.StringVar(&o.token, "token", os.Getenv("SHIP_TOKEN"), "a warehouse's access token (default $SHIP_TOKEN)")
	flag.StringVar(&o.prefix, "prefix", "shp_svc_", "shipment ID prefix of the pool")
	flag.IntVar(&o.start, "start", 1, "first shipment number")
	flag.IntVar(&o.n, "n", 1000, "shipments in the pool from -start")
	flag.IntVar(&o.workers, "c", 8, "concurrent clients")
	flag.DurationVar(&o.duration, "d", 10*time.Second, "duration")
	flag.Float64Var(&o.rate, "rate", 0, "ships per second (open loop); 0 ships as fast as the clients can")
	flag.Parse()
	if o.token == "" {
		fmt.Fprintln(os.Stderr, "ship: -token or $SHIP_TOKEN is required")
		os.Exit(2)
	}
	if err := json.NewEncoder(os.Stdout).Encode(run(o)); err != nil {
		fmt.Fprintln(os.Stderr, "ship:", err)
		os.Exit(1)
	}
}

func run(o options) result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.workers * 4}, Timeout: 10 * time.Second}
	var next atomic.Int64
	next.Store(int64(o.start))
	end := int64(o.start + o.n)
	var rec loadgen.Recorder
	ship := func(due time.Time) bool {
		n := next.Add(1) - 1
		if n >= end {
			return false
		}
		err := shipOne(client, o, o.prefix+strconv.FormatInt(n, 10))
		rec.Record(time.Since(due), err)
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	var exhausted atomic.Bool
	if o.rate <= 0 {
		for range o.workers {
			wg.Go(func() {
				for ctx.Err() == nil {
					if !ship(time.Now()) {
						exhausted.Store(true)
						return
					}
				}
			})
		}
	} else {
		jobs := make(chan time.Time, 100_000)
		for range o.workers {
			wg.Go(func() {
				for due := range jobs {
					if !ship(due) {
						exhausted.Store(true)
					}
				}
			})
		}
		loadgen.Schedule(jobs, start, o.rate, o.duration, exhausted.Load)
	}
	wg.Wait()
	elapsed := time.Since(start)
	latencies, failed, firstErr := rec.Done()
	return result{Sent: len(latencies) + failed, OK: len(latencies), Failed: failed, FirstError: firstErr,
		Latencies: loadgen.Summarize(latencies, elapsed), Exhausted: exhausted.Load()}
}

// shipOne ships one shipment; anything but 200 is an error.
func shipOne(c *http.Client, o options, id string) error {
	body := `{"carrier": "UPS", "trackingNumber": "` + strings.TrimPrefix(id, o.prefix) + `"}`
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, o.url+"/v0/warehouse/shipments/"+id+"/ship",
		strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+o.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return errors.New(strconv.Itoa(resp.StatusCode) + ": " + strings.TrimSpace(string(b)))
	}
	return nil
}
