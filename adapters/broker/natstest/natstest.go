// Package natstest starts a private NATS JetStream server for a test — or
// a cluster of them (StartCluster): the real nats-server binary, on free
// loopback ports, with a store directory of its own, so that a test can
// stop, kill and start its broker without disturbing the machine's
// (127.0.0.1:4222) or another test's. There is no skip: without the binary
// the tests fail and say how to install it.
package natstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/acme3pl/fulfillment/adapters/internal/testserver"
)

// Install is how to get the server on this machine kind.
const Install = "apt-get install -y nats-server (Debian's package puts it at /usr/sbin/nats-server)"

// Server is a private nats-server.
type Server struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	args []string // beyond the client port, JetStream and the store: a cluster's
	proc *testserver.Process
}

// Binary finds nats-server: $NATS_SERVER_BIN, then PATH, then /usr/sbin.
func Binary() (string, error) {
	return testserver.Binary("nats-server", "NATS_SERVER_BIN", "/usr/sbin/nats-server", Install)
}

// Start starts a server with JetStream for t; it is stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := newServer(t, testserver.FreePort(t), nil)
	s.Start()
	return s
}

// newServer is a server not started yet, stopped when t ends.
func newServer(t testing.TB, port int, args []string) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, port: port, dir: t.TempDir(), args: args}
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's client URL.
func (s *Server) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// Start starts the server (again), with the same port and store, and
// waits until it accepts connections.
func (s *Server) Start() {
	s.t.Helper()
	if s.proc != nil {
		return
	}
	log, err := os.OpenFile(filepath.Join(s.dir, "nats-server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer func() { _ = log.Close() }()
	// Not CommandContext: the server outlives this call, until Stop.
	args := append([]string{"-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", filepath.Join(s.dir, "store")}, s.args...)
	cmd := exec.Command(s.bin, args...) //nolint:gosec,noctx // the test's own server, stopped by Stop
	cmd.Stdout, cmd.Stderr = log, log
	s.proc = testserver.Start(s.t, cmd, s.port, s.Log)
}

// Stop stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (s *Server) Stop() {
	if s.proc == nil {
		return
	}
	s.proc.Stop(5 * time.Second)
	s.proc = nil
}

// Kill kills the server with SIGKILL, as a machine that dies: no
// goodbye to its peers or clients; Start starts it again.
func (s *Server) Kill() {
	if s.proc == nil {
		return
	}
	s.proc.Kill()
	s.proc = nil
}

// Log is what the server has logged.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "nats-server.log"))
	return string(b)
}

// Cluster is a JetStream cluster of private servers on loopback, named
// n1, n2, …, routed to one another.
type Cluster struct {
	Servers []*Server
	names   []string
}

// StartCluster starts a cluster of n servers for t and waits until it has
// elected its meta leader (JetStream answers); they are stopped when t
// ends.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	ports, routes := make([]int, n), make([]string, n)
	for i := range n {
		ports[i] = testserver.FreePort(t)
		routes[i] = "nats://127.0.0.1:" + strconv.Itoa(testserver.FreePort(t))
	}
	c := &Cluster{}
	for i := range n {
		name := "n" + strconv.Itoa(i+1)
		var others []string
		for j, r := range routes {
			if j != i {
				others = append(others, r)
			}
		}
		c.names = append(c.names, name)
		c.Servers = append(c.Servers, newServer(t, ports[i], []string{
			"-n", name, "--cluster_name", "fulfillment-test", "--cluster", routes[i], "--routes", strings.Join(others, ","),
		}))
	}
	for _, s := range c.Servers {
		s.Start()
	}
	c.waitJetStream(t)
	return c
}

// URL is every server's client URL, comma-separated, as EVENTS_NATS_URL
// takes them.
func (c *Cluster) URL() string {
	urls := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		urls[i] = s.URL()
	}
	return strings.Join(urls, ",")
}

// Named is the server of the given name (a StreamInfo's Cluster.Leader).
func (c *Cluster) Named(name string) (*Server, bool) {
	for i, n := range c.names {
		if n == name {
			return c.Servers[i], true
		}
	}
	return nil, false
}

// JetStream is a JetStream client of the servers at url (comma-separated
// client URLs), connected until t ends.
func JetStream(t testing.TB, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// waitJetStream waits up to 30 s until the cluster's JetStream answers.
func (c *Cluster) waitJetStream(t testing.TB) {
	t.Helper()
	js := JetStream(t, c.URL())
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster's JetStream does not answer within 30 s: %v; the first server's log: %s", err, c.Servers[0].Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
