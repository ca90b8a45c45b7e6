package main

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The client writes requests net/http's server reads as the intake's,
// keeps one connection for its deliveries, opens another when the server
// closes it, and fails a delivery that made no shipment.
func TestClientDelivers(t *testing.T) {
	var conns, requests atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		var order struct {
			ID        json.Number `json:"id"`
			LineItems []struct {
				SKU string `json:"sku"`
			} `json:"line_items"`
		}
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/v0/storefront/orders" ||
			r.Header.Get("Authorization") != "Bearer "+BenchKey || r.Header.Get("Content-Type") != "application/json" ||
			r.ContentLength != int64(len(body)) || json.Unmarshal(body, &order) != nil || len(order.LineItems) != 2 {
			t.Errorf("request %d: %s %s %v, %d bytes: %s", n, r.Method, r.URL, r.Header, len(body), body)
		}
		switch n {
		case 3:
			w.Header().Set("Connection", "close")
		case 5:
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"error":{"code":"validation_failed"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"shipmentId":"shp_`+order.ID.String()+`"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	g, err := newGenerator(options{url: srv.URL, key: BenchKey, skus: 10, lines: 2, skuFormat: "BENCH-%05d"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &client{g: g}
	defer c.close()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 1; i <= 4; i++ {
		if err := c.deliver(rng); err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections for 4 deliveries with a close after the third, want 2", n)
	}
	if err := c.deliver(rng); err == nil || !strings.Contains(err.Error(), "status 422") {
		t.Errorf("a 422 answer: %v, want its status", err)
	}
	if _, err := newGenerator(options{url: "https://example.com"}, nil); err == nil {
		t.Error("an https URL was taken")
	}
}

// cpuTime reads a process's CPU time from /proc, the same that getrusage
// gives the process itself, and none for no process.
func TestCPUTime(t *testing.T) {
	before := cpuTime(os.Getpid())
	for deadline := time.Now().Add(10 * time.Second); cpuTime(os.Getpid()) < before+100*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("CPU time stuck at %v", cpuTime(os.Getpid()))
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	got, want := cpuTime(os.Getpid()), time.Duration(ru.Utime.Nano()+ru.Stime.Nano())
	if d := got - want; d < -50*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("/proc says %v of CPU, getrusage %v", got, want)
	}
	if d := cpuTime(0); d != 0 {
		t.Errorf("pid 0: %v", d)
	}
}
