// Package natstest starts a private NATS JetStream server for a test: the
// real nats-server binary, on a free loopback port, with a store directory
// of its own, so that a test can stop and start its broker without
// disturbing the machine's (127.0.0.1:4222) or another test's. There is no
// skip: without the binary the tests fail and say how to install it.
package natstest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Install is how to get the server on this machine kind.
const Install = "apt-get install -y nats-server (Debian's package puts it at /usr/sbin/nats-server)"

// Server is a private nats-server.
type Server struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	cmd  *exec.Cmd
	exit chan struct{}
}

// Binary finds nats-server: $NATS_SERVER_BIN, then PATH, then /usr/sbin.
func Binary() (string, error) {
	if p := os.Getenv("NATS_SERVER_BIN"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nats-server"); err == nil {
		return "/usr/sbin/nats-server", nil
	}
	return "", fmt.Errorf("nats-server not found (set NATS_SERVER_BIN, or %s)", Install)
}

// Start starts a server with JetStream for t; it is stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	s := &Server{t: t, bin: bin, port: port, dir: t.TempDir()}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's client URL.
func (s *Server) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// Start starts the server (again), with the same port and store, and
// waits until it accepts connections.
func (s *Server) Start() {
	s.t.Helper()
	if s.cmd != nil {
		return
	}
	log, err := os.OpenFile(filepath.Join(s.dir, "nats-server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer func() { _ = log.Close() }()
	// Not CommandContext: the server outlives this call, until Stop.
	cmd := exec.Command(s.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", filepath.Join(s.dir, "store")) //nolint:gosec,noctx // the test's own server, stopped by Stop
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start nats-server: %v", err)
	}
	s.cmd, s.exit = cmd, make(chan struct{})
	go func(exit chan struct{}) { _ = cmd.Wait(); close(exit) }(s.exit)
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := net.Dialer{Timeout: 200 * time.Millisecond}
		c, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:"+strconv.Itoa(s.port))
		if err == nil {
			_ = c.Close()
			return
		}
		select {
		case <-s.exit:
			s.t.Fatalf("nats-server exited at start; its log: %s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("nats-server does not accept connections on %d: %v", s.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exit:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exit
	}
	s.cmd = nil
}

// Log is what the server has logged.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "nats-server.log"))
	return string(b)
}
