// Package redistest starts a private Redis for a test: the real
// redis-server binary on a free loopback port, keeping nothing on disk, so
// that a test can stop and start its Redis without disturbing the
// machine's (127.0.0.1:6379) or another test's. There is no skip: without
// the binary the tests fail and say how to install it.
package redistest

import (
	"os/exec"
	"strconv"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/internal/testserver"
)

// Install is how to get the server on this machine kind.
const Install = "apt-get install -y redis-server (or run scripts/redis.sh)"

// Server is a private redis-server.
type Server struct {
	t    testing.TB
	bin  string
	port int
	proc *testserver.Process
}

// Binary finds redis-server: $REDIS_SERVER_BIN, then PATH, then /usr/bin.
func Binary() (string, error) {
	return testserver.Binary("redis-server", "REDIS_SERVER_BIN", "/usr/bin/redis-server", Install)
}

// Start starts a server for t; it is stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, port: testserver.FreePort(t)}
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
	if s.proc != nil {
		return
	}
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no") //nolint:gosec,noctx // the test's own binary and flags; it outlives no context
	s.proc = testserver.Start(s.t, cmd, s.port, nil)
}

// Stop stops the server and waits for it to exit.
func (s *Server) Stop() {
	if s.proc == nil {
		return
	}
	s.proc.Kill()
	s.proc = nil
}
