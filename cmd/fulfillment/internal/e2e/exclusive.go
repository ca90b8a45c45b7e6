package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Exclusive makes t the only test of its kind running on the machine
// until it ends: a test that measures answers against a deadline under
// load, or one that loads the machine by itself (two million charges, a
// stress of billing runs). The end-to-end packages run side by side (go
// test runs packages at once), and on two cores an open-loop load beside a
// download of two million rows measures the neighbour, not the service.
// Tests of other kinds still run beside it. The lock is an flock on a file
// in the temporary directory, held by the test's process and released
// when the test ends (or the process dies).
func Exclusive(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "fulfillment-e2e-exclusive.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		t.Fatalf("take the machine's lock of exclusive end-to-end tests: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	})
}
