package main

// tcpProxy: a TCP proxy in front of PostgreSQL that the end-to-end tests cut,
// pause and resume to play network partitions and database outages.

import (
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

func dbAddr(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(e2e.TestDSN)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// tcpProxy forwards connections to PostgreSQL and can cut them (down),
// refuse new ones until up, or partition the network (pause): connections
// stay open, new ones are accepted, but nothing is forwarded until resume.
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	isDown bool
	gate   chan struct{} // closed while traffic flows
	held   atomic.Int64  // chunks of traffic waiting at the gate
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target, gate: make(chan struct{})}
	close(p.gate)
	t.Cleanup(func() { _ = ln.Close(); p.down() })
	go p.serve()
	return p
}

func (p *tcpProxy) dsn(t *testing.T) string {
	u, err := url.Parse(e2e.TestDSN)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

func (p *tcpProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.isDown {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

func (p *tcpProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			gate := p.gate
			p.mu.Unlock()
			select {
			case <-gate:
			default:
				p.held.Add(1)
				<-gate
				p.held.Add(-1)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	_ = dst.Close()
	_ = src.Close()
}

func (p *tcpProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isDown = true
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

func (p *tcpProxy) up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isDown = false
}

func (p *tcpProxy) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gate = make(chan struct{})
}

func (p *tcpProxy) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.gate)
}

// waitHeld waits until traffic is held at the paused gate: a statement has
// been sent into the partition.
func (p *tcpProxy) waitHeld(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for p.held.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no traffic reached the paused proxy within 15s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
