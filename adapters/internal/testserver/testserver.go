// Package testserver runs the real server binaries that the adapters'
// test harnesses (adapters/broker/natstest, adapters/ratelimit/redistest)
// start for a test: finding the binary, a free loopback port, starting the
// process and waiting until it accepts connections, stopping it.
package testserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Binary finds the executable name: $envVar, then PATH, then fallback;
// install says how to get it when none is there.
func Binary(name, envVar, fallback, install string) (string, error) {
	if p := os.Getenv(envVar); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if _, err := os.Stat(fallback); err == nil {
		return fallback, nil
	}
	return "", fmt.Errorf("%s not found (set %s, or %s)", name, envVar, install)
}

// FreePort is a loopback port free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// Process is a running server.
type Process struct {
	cmd  *exec.Cmd
	exit chan struct{}
}

// Start starts cmd, a server that listens on 127.0.0.1:port, and waits up
// to 10 s until it accepts connections. It fails t when the server cannot
// start, exits first or does not answer in time, saying what log returns
// (the server's log; nil when there is none).
func Start(t testing.TB, cmd *exec.Cmd, port int, log func() string) *Process {
	t.Helper()
	name := cmd.Path
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &Process{cmd: cmd, exit: make(chan struct{})}
	go func(exit chan struct{}) { _ = cmd.Wait(); close(exit) }(p.exit)
	logged := func() string {
		if log == nil {
			return ""
		}
		return "; its log: " + log()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := net.Dialer{Timeout: 200 * time.Millisecond}
		c, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			_ = c.Close()
			return p
		}
		select {
		case <-p.exit:
			t.Fatalf("%s on port %d exited at start%s", name, port, logged())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on port %d does not accept connections: %v%s", name, port, err, logged())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server with SIGTERM, then SIGKILL after grace, and waits
// for it to exit.
func (p *Process) Stop(grace time.Duration) {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exit:
	case <-time.After(grace):
		p.Kill()
	}
}

// Kill kills the server with SIGKILL, as a machine that dies, and waits
// for it to exit.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.exit
}
