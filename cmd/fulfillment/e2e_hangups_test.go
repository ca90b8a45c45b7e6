package main

// Requests behind a lock another session holds, with the real binary: a
// fresh server's pool waits for the lock once per request, at most
// REQUEST_TIMEOUT/2; a client that hangs up mid-wait ends its statement
// at once (499, one line, no error); stderr holds JSON lines only.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// holdLock takes lock (LOCK TABLE …) in a transaction of a session of its
// own, held until the test ends or release is called.
func holdLock(t *testing.T, db *bun.DB, lock string) (release func()) {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.ExecContext(context.Background(), lock); err != nil {
		t.Fatal(err)
	}
	return func() { _ = tx.Rollback() }
}

// lockWaiters is how many sessions of the package database wait for a lock.
func lockWaiters(t *testing.T, db *bun.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// wantJSONLines checks that every line the server wrote on stderr is a JSON
// object, and, unless errorsAllowed, that none is an error.
func wantJSONLines(t *testing.T, srv *e2e.Server, errorsAllowed bool) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(srv.Logs()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("a line on stderr is not JSON: %q", line)
			continue
		}
		if v["level"] == "ERROR" && !errorsAllowed {
			t.Errorf("an error line: %s", line)
		}
	}
}

// A fresh server (no statement prepared yet, every connection new) behind
// LOCK TABLE product_stock: each delivery waits for the lock once and is
// answered 503 within lock_timeout (REQUEST_TIMEOUT/2 = 3 s) and a second
// for the rest of its work (the failed attempt is recorded), not after
// waiting for the lock twice (preparing its statements waited first).
func TestFreshServerWaitsForALockOnce(t *testing.T) {
	seedIntake(t)
	db := pgtest.Open(t, e2e.TestDSN)
	release := holdLock(t, db, "LOCK TABLE product_stock IN ACCESS EXCLUSIVE MODE")
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "REQUEST_TIMEOUT=6s"))
	for i, id := range []int64{8300001, 8300002, 8300003} {
		r := send("POST", srv.URL+"/v0/storefront/orders", smallOrder(id, "KEY-LTH-01", "1"), "Authorization", "Bearer "+intakeKeyA)
		t.Logf("delivery %d behind the lock: %d after %s", i+1, r.Status, r.Elapsed.Round(time.Millisecond))
		if !unavailableAnswer(r) || r.Elapsed > 4*time.Second {
			t.Errorf("delivery %d behind the lock: %d %s after %s, want 503 unavailable within 4 s", i+1, r.Status, r.Body, r.Elapsed)
		}
	}
	release()
	wantJSONLines(t, srv, true) // a 503 is logged as an error

	// A read on the pool (no transaction) of a fresh server behind LOCK
	// TABLE shipments: the same, one wait.
	release = holdLock(t, db, "LOCK TABLE shipments IN ACCESS EXCLUSIVE MODE")
	defer release()
	srv = e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "REQUEST_TIMEOUT=6s"))
	for i := range 3 {
		r := send("GET", srv.URL+"/v0/shipments", nil, "Authorization", "Bearer "+intakeTokenA)
		t.Logf("read %d behind the lock: %d after %s", i+1, r.Status, r.Elapsed.Round(time.Millisecond))
		if r.Status != http.StatusServiceUnavailable || r.Elapsed > 4*time.Second {
			t.Errorf("read %d behind the lock: %d %s after %s, want 503 within 4 s", i+1, r.Status, r.Body, r.Elapsed)
		}
	}
	wantJSONLines(t, srv, true)
}

// A client that hangs up while its request waits for a lock: the statement
// is gone from pg_stat_activity at once (not at lock_timeout, 2 s later),
// the request is logged once as 499, and no error line follows — a read
// (GET /v0/shipments behind LOCK TABLE shipments) and a storefront's order
// (behind LOCK TABLE product_stock) alike.
func TestHangUpEndsTheStatement(t *testing.T) {
	seedIntake(t)
	db := pgtest.Open(t, e2e.TestDSN)
	tests := []struct {
		name, lock, method, route string
		body                      []byte
		auth                      string
		warm                      func(srv *e2e.Server) // the statements prepared, the pool's connections open
		warmed                    int                   // the requests warm sends
	}{
		{"a read", "LOCK TABLE shipments IN ACCESS EXCLUSIVE MODE", "GET", "/v0/shipments", nil, intakeTokenA, func(srv *e2e.Server) {
			_ = e2e.Do(t, "GET", srv.URL+"/v0/shipments", nil, "Authorization", "Bearer "+intakeTokenA)
		}, 1},
		{"an order", "LOCK TABLE product_stock IN ACCESS EXCLUSIVE MODE", "POST", "/v0/storefront/orders",
			smallOrder(8300101, "KEY-LTH-01", "1"), intakeKeyA, func(srv *e2e.Server) {
				e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8300102, "KEY-LTH-01", "1")))
				e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, smallOrder(8300103, "KEY-LTH-01", "1")))
			}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
			tt.warm(srv)
			// A request's access line is written once its answer is out: wait
			// for the warm-up's lines, so that none is taken for the hung-up one's.
			routeLine := `"route":"` + tt.route + `"`
			for deadline := time.Now().Add(5 * time.Second); strings.Count(srv.Logs(), routeLine) < tt.warmed; {
				if time.Now().After(deadline) {
					t.Fatalf("the warm-up's %d access lines were not logged:\n%s", tt.warmed, srv.Logs())
				}
				time.Sleep(5 * time.Millisecond)
			}
			logged := len(srv.Logs())
			release := holdLock(t, db, tt.lock)
			defer release()
			ctx, hangUp := context.WithCancel(context.Background())
			defer hangUp()
			done := make(chan error, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, tt.method, srv.URL+tt.route, bytes.NewReader(tt.body))
				req.Header.Set("Authorization", "Bearer "+tt.auth)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_ = resp.Body.Close()
				}
				done <- err
			}()
			pgtest.WaitForLockWaiters(t, db, 1)
			hangUp()
			hungUp := time.Now()
			if err := <-done; err == nil {
				t.Fatal("the request was answered behind the lock")
			}
			for lockWaiters(t, db) > 0 {
				if time.Since(hungUp) > time.Second {
					t.Fatalf("the statement still waits for the lock 1 s after its client hung up")
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("the statement was gone %s after the client hung up", time.Since(hungUp).Round(time.Millisecond))
			// Past lock_timeout (2 s): nothing more is logged for the request.
			time.Sleep(2500 * time.Millisecond)
			var answered int
			for _, line := range strings.Split(srv.Logs()[logged:], "\n") {
				if strings.Contains(line, `"msg":"request"`) && strings.Contains(line, `"route":"`+tt.route+`"`) {
					if !strings.Contains(line, `"status":499`) {
						t.Errorf("the request logged as: %s", line)
					}
					answered++
				}
			}
			if answered != 1 {
				t.Errorf("%d access log lines for the request, want 1 (499):\n%s", answered, srv.Logs())
			}
			wantJSONLines(t, srv, false)
		})
	}
}
