// Package proccpu reads the CPU time of processes from Linux's /proc: a
// process's own, a process tree's (a PostgreSQL server: its postmaster and
// every backend), and the backends of one database. The benchmarks report
// PostgreSQL's CPU with it.
package proccpu

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"time"
)

// procStat returns the fields of /proc/PID/stat after the command's name in
// parentheses (state, ppid, ... utime is the 12th, stime the 13th, cutime
// and cstime the 14th and 15th), or nil when it cannot be read.
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 15 {
		return nil
	}
	return f
}

// Parent is the parent of process pid (a PostgreSQL backend's is the
// postmaster), 0 when it cannot be read.
func Parent(pid int) int {
	f := procStat(pid)
	if f == nil {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// ticks sums fields of a procStat as CPU time: the kernel counts in clock
// ticks of 10 ms.
func ticks(f []string, idx ...int) time.Duration {
	var n int64
	for _, i := range idx {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		n += v
	}
	return time.Duration(n) * 10 * time.Millisecond
}

// CPUTime returns the CPU time, user and system, that process pid has used
// so far: from /proc, in the kernel's clock ticks of 10 ms; 0 when it
// cannot be read (pid 0: no server named).
func CPUTime(pid int) time.Duration {
	f := procStat(pid)
	if f == nil {
		return 0
	}
	return ticks(f, 11, 12)
}

// TreeCPUTime returns the CPU time, user and system, that process pid and
// its children have used so far: its own, that of the children it has
// waited for (cutime, cstime: the kernel adds a child's times there when
// its parent reaps it), and that of its live children. For PostgreSQL's
// postmaster that is the whole server: every backend, those that ended
// included (the postmaster reaps them), and the background processes. 0
// when pid cannot be read.
func TreeCPUTime(pid int) time.Duration {
	for attempt := 0; ; attempt++ {
		before := procStat(pid)
		if before == nil {
			return 0
		}
		children := childrenCPUTime(pid)
		after := procStat(pid)
		if after == nil {
			return 0
		}
		// A child reaped during the scan would be counted twice (live, then
		// in cutime) or not at all: scan again.
		if reaped := ticks(before, 13, 14); reaped == ticks(after, 13, 14) || attempt == 10 {
			return ticks(after, 11, 12, 13, 14) + children
		}
	}
}

// childrenCPUTime sums the CPU time of pid's live children (zombies not yet
// reaped included: /proc still holds their times).
func childrenCPUTime(pid int) time.Duration {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var sum time.Duration
	parent := strconv.Itoa(pid)
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(child); f != nil && f[1] == parent {
			sum += ticks(f, 11, 12)
		}
	}
	return sum
}

// BackendWatch follows the CPU time of the PostgreSQL backends serving one
// database: the postmaster's children whose process title (PostgreSQL
// writes "postgres: CLUSTER: USER DATABASE HOST(PORT) STATE" over its
// command line) names it. A backend that ends during the watch still counts
// up to its last sample, which is why the watch samples often: the server is
// shared with other databases, and the postmaster's reaped children do not
// say which database they served.
type BackendWatch struct {
	postmaster int
	title      string                // " DATABASE " as it appears in a title
	base, last map[int]time.Duration // per backend: at its first sample (0 when it began during the watch), at its last
}

// NewBackendWatch takes the first sample: backends that exist now count from
// here on, later ones from their start.
func NewBackendWatch(postmaster int, database string) *BackendWatch {
	w := &BackendWatch{postmaster: postmaster, title: " " + database + " ", base: map[int]time.Duration{}, last: map[int]time.Duration{}}
	w.sample()
	for pid, cpu := range w.last {
		w.base[pid] = cpu
	}
	return w
}

// sample reads every backend of the database once.
func (w *BackendWatch) sample() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	parent := strconv.Itoa(w.postmaster)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := procStat(pid)
		if f == nil || f[1] != parent {
			continue
		}
		if _, known := w.last[pid]; !known {
			cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err != nil || !strings.Contains(string(cmd), w.title) {
				continue
			}
		}
		w.last[pid] = ticks(f, 11, 12)
	}
}

// total is the CPU time the database's backends have used since the watch
// began, up to the last sample.
func (w *BackendWatch) total() time.Duration {
	var sum time.Duration
	for pid, cpu := range w.last {
		sum += cpu - w.base[pid]
	}
	return sum
}

// Watch samples every interval until ctx ends, then once more, and returns
// the total.
func (w *BackendWatch) Watch(ctx context.Context, interval time.Duration) time.Duration {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			w.sample()
			return w.total()
		case <-t.C:
			w.sample()
		}
	}
}

// Meter measures the CPU time, user and system, that each of several
// processes uses from the meter's start: a benchmark's service and each
// server of a broker's cluster over one phase, each on its own, so that a
// phase reports every process's CPU per unit of work.
type Meter struct {
	pids []int
	base []time.Duration
}

// NewMeter starts measuring pids (0 stands for no process: it reads 0).
func NewMeter(pids ...int) *Meter {
	m := &Meter{pids: pids, base: make([]time.Duration, len(pids))}
	for i, pid := range pids {
		m.base[i] = CPUTime(pid)
	}
	return m
}

// Used returns the CPU time each process used since NewMeter, in the order
// given; a process that can no longer be read reads 0.
func (m *Meter) Used() []time.Duration {
	out := make([]time.Duration, len(m.pids))
	for i, pid := range m.pids {
		if now := CPUTime(pid); now > 0 {
			out[i] = now - m.base[i]
		}
	}
	return out
}

// PerUnit is d in microseconds per unit of work, 0 when there was none.
func PerUnit(d time.Duration, units int) float64 {
	if units <= 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(units)
}
