// Command invoices is the benchmark of GET /v0/invoices at scale
// (docs/benchmarks/invoices.md):
//
//	go run ./bench/invoices gen     -dsn DSN -org ORG -n N       # fill an organization with N invoices
//	go run ./bench/invoices load    -target NAME=URL,TOKEN,ORG ... # p50/p99 per query shape over HTTP
//	go run ./bench/invoices explain -dsn DSN -org ORG            # database time per query shape
//	go run ./bench/invoices reads   -service URL,TOKEN -baseline URL # throughput against bench/baseline
//
// bench/invoices/run.sh runs the whole benchmark with one command, and
// bench/reads/run.sh the read benchmark against the bare pgx baseline.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: invoices gen|load|explain|reads|instructions [flags]  (-h after a subcommand lists its flags)`

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
	case "explain":
		err = explain(ctx, os.Args[2:])
	case "reads":
		err = reads(ctx, os.Args[2:])
	case "instructions":
		err = instructions(ctx, os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "invoices:", err)
		os.Exit(1)
	}
}
