// Command ratelimit-load drives one server for bench/ratelimit/run.sh: list
// requests (GET PATH with a bearer token) at a fixed open-loop rate for a
// duration, and prints, as one JSON line, the answers' rate and latency and
// the CPU time per request of the server process and, when named, of the
// redis-server that keeps its buckets (both from /proc).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/acme3pl/fulfillment/bench/internal/loadgen"
	"github.com/acme3pl/fulfillment/bench/internal/proccpu"
)

func main() {
	url := flag.String("url", "", "the list's URL, e.g. http://127.0.0.1:18300/v0/warehouses")
	token := flag.String("token", "", "the bearer token")
	rate := flag.Float64("rate", 400, "requests per second, open loop")
	d := flag.Duration("d", 10*time.Second, "how long")
	workers := flag.Int("workers", 64, "requests in flight at most")
	pid := flag.Int("pid", 0, "the server's pid (its CPU time per request)")
	redisPID := flag.Int("redis-pid", 0, "the redis-server's pid (its CPU time per request), 0: none")
	flag.Parse()
	if err := run(*url, *token, *rate, *d, *workers, *pid, *redisPID); err != nil {
		fmt.Fprintln(os.Stderr, "ratelimit-load:", err)
		os.Exit(1)
	}
}

// result is a run's line.
type result struct {
	loadgen.Latencies
	Sent           int     `json:"sent"`
	Failed         int     `json:"failed"`
	FirstError     string  `json:"first_error,omitempty"`
	ServerCPUPerUS float64 `json:"server_cpu_us_per_request"`
	RedisCPUPerUS  float64 `json:"redis_cpu_us_per_request"`
}

func run(url, token string, rate float64, d time.Duration, workers, pid, redisPID int) error {
	if url == "" || token == "" || pid == 0 {
		return fmt.Errorf("-url, -token and -pid are needed")
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var rec loadgen.Recorder
	jobs := make(chan time.Time, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for due := range jobs {
				rec.Record(time.Since(due), get(client, url, token))
			}
		})
	}
	cpu0, redis0 := proccpu.CPUTime(pid), proccpu.CPUTime(redisPID)
	start := time.Now()
	loadgen.Schedule(jobs, start, rate, d, nil)
	wg.Wait()
	elapsed := time.Since(start)
	cpu, redisCPU := proccpu.CPUTime(pid)-cpu0, proccpu.CPUTime(redisPID)-redis0
	lat, failed, firstErr := rec.Done()
	r := result{Latencies: loadgen.Summarize(lat, elapsed), Sent: len(lat) + failed, Failed: failed, FirstError: firstErr}
	if n := float64(len(lat) + failed); n > 0 {
		r.ServerCPUPerUS = float64(cpu.Microseconds()) / n
		r.RedisCPUPerUS = float64(redisCPU.Microseconds()) / n
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

// get sends one list request; any answer but 200 is a failure (a 429 too:
// the limit is meant to refuse nothing).
func get(client *http.Client, url, token string) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", url, strconv.Itoa(resp.StatusCode))
	}
	return nil
}
