// Command events-lag reads the relay's metrics of a running server for
// bench/events/run.sh: with -save, it writes the histogram of
// fulfillment_events_publish_lag_seconds and the published count to a file;
// with -since, it prints, as one JSON line, what happened since that file:
// events published, and the lag's p50 and p99 (from a change's write to
// the broker's acknowledgement), interpolated in the histogram's buckets
// as Prometheus' histogram_quantile does. With -watch-cpu it measures
// processes' CPU time over a phase instead (cpu.go).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// snapshot is the lag histogram's cumulative counts by upper bound.
type snapshot struct {
	Count   float64            `json:"count"`
	Buckets map[string]float64 `json:"buckets"` // by upper bound, as strconv writes it
}

func main() {
	url := flag.String("metrics", "", "the server's /metrics URL")
	save := flag.String("save", "", "write the histogram to this file")
	since := flag.String("since", "", "print what happened since the histogram in this file")
	watch := flag.Bool("watch-cpu", false, "measure CPU time until SIGINT or SIGTERM, then print it (µs, JSON)")
	procs := flag.String("procs", "", "with -watch-cpu: the processes, name=pid,name=pid")
	pgPID := flag.Int("pg-pid", 0, "with -watch-cpu: PostgreSQL's postmaster")
	pgDB := flag.String("pg-db", "", "with -watch-cpu: the database whose backends count")
	flag.Parse()
	var err error
	if *watch {
		err = watchCPU(*procs, *pgPID, *pgDB)
	} else {
		err = run(*url, *save, *since)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "events-lag:", err)
		os.Exit(1)
	}
}

func run(url, save, since string) error {
	now, err := read(url)
	if err != nil {
		return err
	}
	if save != "" {
		b, err := json.Marshal(now)
		if err != nil {
			return err
		}
		return os.WriteFile(save, b, 0o600)
	}
	b, err := os.ReadFile(since)
	if err != nil {
		return err
	}
	var before snapshot
	if err := json.Unmarshal(b, &before); err != nil {
		return err
	}
	delta := snapshot{Count: now.Count - before.Count, Buckets: map[string]float64{}}
	for le, n := range now.Buckets {
		delta.Buckets[le] = n - before.Buckets[le]
	}
	out, err := json.Marshal(map[string]float64{
		"published": delta.Count, "p50_ms": quantile(0.5, delta) * 1000, "p99_ms": quantile(0.99, delta) * 1000,
	})
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

func read(url string) (snapshot, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url) //nolint:noctx // a one-shot command
	if err != nil {
		return snapshot{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return snapshot{}, err
	}
	f, ok := families["fulfillment_events_publish_lag_seconds"]
	if !ok || len(f.GetMetric()) != 1 || f.GetType() != dto.MetricType_HISTOGRAM {
		return snapshot{}, fmt.Errorf("%s has no fulfillment_events_publish_lag_seconds histogram (events off?)", url)
	}
	h := f.GetMetric()[0].GetHistogram()
	s := snapshot{Count: float64(h.GetSampleCount()), Buckets: map[string]float64{}}
	for _, b := range h.GetBucket() {
		s.Buckets[strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)] = float64(b.GetCumulativeCount())
	}
	return s, nil
}

// quantile interpolates linearly within the bucket that holds q, the
// lowest bucket starting at 0.
func quantile(q float64, s snapshot) float64 {
	if s.Count == 0 {
		return 0
	}
	bounds := make([]float64, 0, len(s.Buckets))
	counts := map[float64]float64{}
	for k, n := range s.Buckets {
		le, err := strconv.ParseFloat(k, 64)
		if err != nil {
			continue
		}
		bounds = append(bounds, le)
		counts[le] = n
	}
	sort.Float64s(bounds)
	rank := q * s.Count
	lower, below := 0.0, 0.0
	for _, le := range bounds {
		n := counts[le]
		if n >= rank {
			if math.IsInf(le, 1) {
				return lower
			}
			return lower + (le-lower)*(rank-below)/max(n-below, 1)
		}
		lower, below = le, n
	}
	return bounds[len(bounds)-1]
}
