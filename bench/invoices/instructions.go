package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// instructions counts the user-space instructions each server runs per
// request of each workload of reads, with both servers running under
// valgrind's callgrind (bench/reads/run.sh starts them so with
// INSTRUCTIONS=1). Unlike throughput and CPU time, the count hardly moves
// with the machine's other load, so that a change of a few percent shows
// from one run. The kernel's work (system calls, the loopback network) is
// not counted.
//
// For each server and workload: warm-up requests, callgrind's counters
// zeroed, requests one after another, the counters dumped and read.
func instructions(ctx context.Context, args []string) error {
	fs := newServersFlags("instructions", "URL,TOKEN,PID of the service running under callgrind",
		"URL,,PID of the baseline running under callgrind")
	dumps := fs.String("dumps", "", "the folder of callgrind's output files (--callgrind-out-file=DIR/callgrind.out.%p)")
	n := fs.Int("n", 2000, "measured requests per workload and server")
	warmup := fs.Int("warmup", 300, "unmeasured requests before")
	service, baseline, err := fs.parse(args)
	if err != nil {
		return err
	}
	if service.pid == 0 || baseline.pid == 0 || *dumps == "" {
		return errors.New("want -service and -baseline with their PIDs, and -dumps")
	}
	client := &http.Client{Timeout: time.Minute}
	workloads, err := readWorkloads(ctx, client, service, *fs.details)
	if err != nil {
		return err
	}
	fmt.Println("| workload | service instructions per request | baseline instructions per request | **ratio** |")
	fmt.Println("|---|---:|---:|---:|")
	for _, w := range workloads {
		var counts [2]int64
		for i, s := range []*server{service, baseline} {
			if err := serial(ctx, client, s, w.paths, *warmup); err != nil {
				return err
			}
			if err := callgrindControl(ctx, "-z", s.pid); err != nil {
				return err
			}
			if err := serial(ctx, client, s, w.paths, *n); err != nil {
				return err
			}
			total, err := dumpTotal(ctx, *dumps, s.pid)
			if err != nil {
				return err
			}
			counts[i] = total / int64(*n)
			fmt.Fprintf(os.Stderr, "instructions: %s %s: %d per request\n", w.name, s.name, counts[i])
		}
		fmt.Printf("| %s (%d paths) | %d | %d | **%.2f** |\n", w.name, len(w.paths), counts[0], counts[1],
			float64(counts[0])/float64(counts[1]))
	}
	return nil
}

// serial sends n requests one after another, round-robin over paths, and
// fails on any answer but 200.
func serial(ctx context.Context, c *http.Client, s *server, paths []string, n int) error {
	for i := range n {
		status, _, body, err := fetch(ctx, c, s, paths[i%len(paths)])
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("%s GET %s: %d %s", s.name, paths[i%len(paths)], status, body)
		}
	}
	return nil
}

func callgrindControl(ctx context.Context, op string, pid int) error {
	out, err := exec.CommandContext(ctx, "callgrind_control", op, strconv.Itoa(pid)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("callgrind_control %s %d: %w: %s", op, pid, err, out)
	}
	return nil
}

// dumpTotal has callgrind dump pid's counters, the events since they were
// zeroed, and returns the instructions of the dump.
func dumpTotal(ctx context.Context, dir string, pid int) (int64, error) {
	before, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("callgrind.out.%d.*", pid)))
	if err := callgrindControl(ctx, "-d", pid); err != nil {
		return 0, err
	}
	// The dump is written as callgrind.out.PID.N, N counting up.
	name := filepath.Join(dir, fmt.Sprintf("callgrind.out.%d.%d", pid, len(before)+1))
	for range 100 {
		f, err := os.Open(name)
		if err == nil {
			total, err := summary(f)
			_ = f.Close()
			if err == nil {
				return total, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, fmt.Errorf("no complete callgrind dump %s", name)
}

// summary reads the "summary:" (or "totals:") line of a callgrind dump.
func summary(f *os.File) (int64, error) {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		for _, key := range []string{"summary:", "totals:"} {
			if v, ok := strings.CutPrefix(sc.Text(), key); ok {
				return strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			}
		}
	}
	return 0, errors.New("no summary line yet")
}
