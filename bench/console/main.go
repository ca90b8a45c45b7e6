// Command console is the benchmark of the operator's console at scale
// (docs/benchmarks/console.md): every page of §18 answers in at most 100 ms
// at the 99th percentile on a database of a million invoices and a million
// shipments.
//
//	go run ./bench/console gen  -dsn DSN                          # fill the scale database (kept between runs)
//	go run ./bench/console load -url URL -link SIGN_IN_URL        # p50/p99/max per page over HTTP
//
// bench/console/run.sh runs the whole benchmark with one command.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: console gen|load [flags]  (-h after a subcommand lists its flags)`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(ctx, os.Args[2:])
	case "load":
		err = load(ctx, os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "console:", err)
		os.Exit(1)
	}
}
