package main

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// treeCPUTime counts a child's CPU time while it runs and after its parent
// has reaped it, as it counts a PostgreSQL backend that ends during a phase.
func TestTreeCPUTime(t *testing.T) {
	self := os.Getpid()
	before := treeCPUTime(self)
	if before < cpuTime(self) {
		t.Fatalf("tree %v < own %v", before, cpuTime(self))
	}
	child := exec.Command("sh", "-c", "while :; do :; done")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill() }()
	// Alive: its time shows through the scan of the children.
	for deadline := time.Now().Add(10 * time.Second); treeCPUTime(self) < before+200*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("a busy child is not counted: %v, then %v", before, treeCPUTime(self))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait() // reaped: its times move to this process's cutime and cstime
	ps := child.ProcessState
	childCPU := ps.UserTime() + ps.SystemTime()
	got := treeCPUTime(self) - before
	if own := cpuTime(self); got < childCPU-20*time.Millisecond || got > childCPU+own+20*time.Millisecond {
		t.Errorf("tree grew by %v; the reaped child used %v (and this process %v in all)", got, childCPU, own)
	}
	if d := treeCPUTime(0); d != 0 {
		t.Errorf("pid 0: %v", d)
	}
}
