// Package testenv holds what the deploy tests share: the repository's root,
// the tools they drive (installed on first use by scripts/tools.sh) and a
// way to run them.
package testenv

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Root is the repository's root directory.
func Root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Tool returns the path of a tool of scripts/tools.sh, installing it on
// first use; the test fails saying why when it cannot.
func Tool(t testing.TB, name string) string {
	t.Helper()
	out, err := Run(10*time.Minute, Root(t), filepath.Join(Root(t), "scripts", "tools.sh"), name)
	if err != nil {
		t.Fatalf("%s is missing and could not be installed (run: scripts/tools.sh %s): %v", name, name, err)
	}
	return strings.TrimSpace(out)
}

// Error is a command's failure with what it wrote on stderr.
type Error struct {
	Cmd    string
	Err    error
	Stderr string
}

func (e *Error) Error() string {
	return e.Cmd + ": " + e.Err.Error() + ": " + strings.TrimSpace(e.Stderr)
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs a command in dir and returns its stdout; a failure (non-zero
// exit or timeout) is an *Error carrying its stderr.
func Run(timeout time.Duration, dir, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &Error{Cmd: filepath.Base(name) + " " + strings.Join(args, " "), Err: err, Stderr: stderr.String()}
	}
	return stdout.String(), nil
}

// ReadFile returns a file's content, failing the test when it cannot.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
