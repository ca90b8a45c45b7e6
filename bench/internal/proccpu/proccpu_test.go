package proccpu

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// treeCPUTime counts a child's CPU time while it runs and after its parent
// has reaped it, as it counts a PostgreSQL backend that ends during a phase.
func TestTreeCPUTime(t *testing.T) {
	self := os.Getpid()
	// Own first: the process's time only grows, so the tree read after it
	// holds at least as much.
	ownBefore := CPUTime(self)
	before := TreeCPUTime(self)
	if before < ownBefore {
		t.Fatalf("tree %v < own %v read before it", before, ownBefore)
	}
	child := exec.Command("sh", "-c", "while :; do :; done")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill() }()
	// Alive: its time shows through the scan of the children.
	for deadline := time.Now().Add(10 * time.Second); TreeCPUTime(self) < before+200*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("a busy child is not counted: %v, then %v", before, TreeCPUTime(self))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait() // reaped: its times move to this process's cutime and cstime
	ps := child.ProcessState
	childCPU := ps.UserTime() + ps.SystemTime()
	got := TreeCPUTime(self) - before
	if own := CPUTime(self); got < childCPU-20*time.Millisecond || got > childCPU+own+20*time.Millisecond {
		t.Errorf("tree grew by %v; the reaped child used %v (and this process %v in all)", got, childCPU, own)
	}
	if d := TreeCPUTime(0); d != 0 {
		t.Errorf("pid 0: %v", d)
	}
}

// CPUTime reads a process's CPU time from /proc, the same that getrusage
// gives the process itself, and none for no process.
func TestCPUTime(t *testing.T) {
	before := CPUTime(os.Getpid())
	for deadline := time.Now().Add(10 * time.Second); CPUTime(os.Getpid()) < before+100*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("CPU time stuck at %v", CPUTime(os.Getpid()))
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	got, want := CPUTime(os.Getpid()), time.Duration(ru.Utime.Nano()+ru.Stime.Nano())
	if d := got - want; d < -50*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("/proc says %v of CPU, getrusage %v", got, want)
	}
	if d := CPUTime(0); d != 0 {
		t.Errorf("pid 0: %v", d)
	}
}

// A meter reads what each process used since its start: a busy child's
// time grows, an idle one's stays near 0, and a process of pid 0 reads 0.
func TestMeter(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	idle := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{busy, idle} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	}
	m := NewMeter(busy.Process.Pid, idle.Process.Pid, 0)
	deadline := time.Now().Add(10 * time.Second)
	for m.Used()[0] < 200*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("a busy process is not counted: %v", m.Used())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if used := m.Used(); used[1] > 50*time.Millisecond || used[2] != 0 {
		t.Fatalf("used %v: want the idle process near 0 and pid 0 at 0", used)
	}
	if got := PerUnit(3*time.Millisecond, 2); got != 1500 {
		t.Fatalf("PerUnit: %v, want 1500 µs", got)
	}
	if got := PerUnit(time.Second, 0); got != 0 {
		t.Fatalf("PerUnit of no unit: %v", got)
	}
}
