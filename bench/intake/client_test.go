package main

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
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
