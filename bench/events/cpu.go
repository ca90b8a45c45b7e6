package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/acme3pl/fulfillment/bench/internal/proccpu"
)

// watchCPU measures, from now until SIGINT or SIGTERM, the CPU time of
// each process of procs ("name=pid,name=pid": the service, each
// nats-server) and of PostgreSQL (with pgPID, its postmaster: the backends
// of the database pgDB, which serve the service's pools and its relay's,
// sampled every 50 ms so that one ending meanwhile still counts; and the
// whole server, other databases' work included), and prints them as one
// JSON object of microseconds: {"NAME_us": …, "pg_db_us": …,
// "pg_server_us": …}. bench/events/run.sh runs it around each phase.
func watchCPU(procs string, pgPID int, pgDB string) error {
	var names []string
	var pids []int
	for _, p := range strings.Split(procs, ",") {
		name, pid, ok := strings.Cut(p, "=")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || name == "" {
			return fmt.Errorf("-procs: %q is not name=pid", p)
		}
		names, pids = append(names, name), append(pids, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	meter := proccpu.NewMeter(pids...)
	var pgServer0 time.Duration
	var backends *proccpu.BackendWatch
	if pgPID != 0 {
		pgServer0 = proccpu.TreeCPUTime(pgPID)
		backends = proccpu.NewBackendWatch(pgPID, pgDB)
	}
	fmt.Fprintln(os.Stderr, "ready") // run.sh starts the phase once the first samples are taken
	out := map[string]int64{}
	if backends != nil {
		out["pg_db_us"] = backends.Watch(ctx, 50*time.Millisecond).Microseconds()
		out["pg_server_us"] = (proccpu.TreeCPUTime(pgPID) - pgServer0).Microseconds()
	} else {
		<-ctx.Done()
	}
	for i, used := range meter.Used() {
		out[names[i]+"_us"] = used.Microseconds()
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}
