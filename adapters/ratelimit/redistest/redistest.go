// Package redistest starts a private Redis for a test: the real
// redis-server binary on a free loopback port, keeping nothing on disk, so
// that a test can stop and start its Redis without disturbing the
// machine's (127.0.0.1:6379) or another test's. There is no skip: without
// the binary the tests fail and say how to install it.
package redistest

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

// Install is how to get the server on this machine kind.
const Install = "apt-get install -y redis-server (or run scripts/redis.sh)"

// Server is a private redis-server.
type Server struct {
	t    testing.TB
	bin  string
	port int
	cmd  *exec.Cmd
	exit chan struct{}
}

// Binary finds redis-server: $REDIS_SERVER_BIN, then PATH, then /usr/bin.
func Binary() (string, error) {
	if p := os.Getenv("REDIS_SERVER_BIN"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/redis-server"); err == nil {
		return "/usr/bin/redis-server", nil
	}
	return "", fmt.Errorf("redis-server not found (set REDIS_SERVER_BIN, or %s)", Install)
}

// Start starts a server for t; it is stopped when t ends.
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
	s := &Server{t: t, bin: bin, port: port}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://127.0.0.1:" + strconv.Itoa(s.port) + "/0" }

// Start starts the server (again) on the same port and waits until it
// accepts connections.
func (s *Server) Start() {
	s.t.Helper()
	if s.cmd != nil {
		return
	}
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no") //nolint:gosec,noctx // the test's own binary and flags; it outlives no context
	s.exit = make(chan struct{})
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v (%s)", err, Install)
	}
	go func(cmd *exec.Cmd, exit chan struct{}) {
		_ = cmd.Wait()
		close(exit)
	}(s.cmd, s.exit)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var d net.Dialer
		c, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:"+strconv.Itoa(s.port))
		if err == nil {
			_ = c.Close()
			return
		}
		select {
		case <-s.exit:
			s.t.Fatalf("redis-server on port %d exited at start", s.port)
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on port %d does not accept connections: %v", s.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exit
	s.cmd = nil
}
