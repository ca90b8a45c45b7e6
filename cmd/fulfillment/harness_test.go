package main

// The end-to-end harness: the real binary, built once per test run, against
// a PostgreSQL database of this package's own (pgtest), driven over HTTP.
// Feature tests live in e2e_*_test.go beside this file.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
)

// testSigningKey signs the access tokens of the end-to-end tests.
const testSigningKey = "e2e-signing-key-0123456789abcdef-0123456789"

var (
	binPath string // the built binary
	testDSN string // this package's database, migrated
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "fulfillment-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer func() { _ = os.RemoveAll(dir) }()
		binPath = filepath.Join(dir, "fulfillment")
		build := exec.Command("go", "build", "-race", "-o", binPath, ".")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "build the binary: %v\n", err)
			return 1
		}
		if err := checkAnswers(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return reportAnswers(pgtest.Main(m, &testDSN))
	}())
}

// baseEnv is the environment of every command the tests run.
func baseEnv(dsn string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"DATABASE_URL=" + dsn,
		"AUTH_SIGNING_KEY=" + testSigningKey,
		"OTEL_TRACES_EXPORTER=none",
		"LOG_LEVEL=info",
		"SHUTDOWN_DELAY=0s",
		// Limits out of the way of the tests that are not about them
		// (e2e_ratelimit_test.go sets its own; a later entry wins).
		"RATE_LIMIT=1000000/s",
		"RATE_LIMIT_BURST=1000000",
	}
	return append(env, extra...)
}

// result is what a command printed and its exit status.
type result struct {
	Stdout, Stderr string
	Code           int
}

// runCLI runs the binary to completion.
func runCLI(t testing.TB, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok { //nolint:errorlint // exec returns it unwrapped
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// mustCLI runs the binary and fails the test unless it exits 0.
func mustCLI(t testing.TB, env []string, args ...string) string {
	t.Helper()
	r := runCLI(t, env, args...)
	if r.Code != 0 {
		t.Fatalf("fulfillment %s: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
	}
	return r.Stdout
}

// fixtureWarehouse is a warehouse of a seed fixture, used by orgs: the
// same dock in Newark for every test, its address named as the warehouse.
func fixtureWarehouse(id, name string, active bool, orgs ...string) map[string]any {
	return map[string]any{"id": id, "name": name, "description": nil, "active": active,
		"address": map[string]any{"name": name, "line1": "1 Dock St", "line2": "", "district": "", "city": "Newark",
			"state": "NJ", "countryCode": "US", "postalCode": "07102"},
		"contact": map[string]any{"name": "Ops", "email": "ops@example.com", "phoneNumber": "+1 555 0100", "fax": ""},
		"tags":    []string{}, "organizations": orgs}
}

// fixtureOrg is an organization of a seed fixture.
func fixtureOrg(id, name string) map[string]any {
	return map[string]any{"id": id, "name": name}
}

// fixtureItem is a product or carton of a seed fixture, named as its SKU.
func fixtureItem(id, org, sku string) map[string]any {
	return map[string]any{"id": id, "organizationId": org, "sku": sku, "name": sku}
}

// scratchDatabase creates a database of the test's own (migrated or
// empty), dropped when the test ends, and returns its DSN.
func scratchDatabase(t *testing.T, migrated bool) string {
	t.Helper()
	name, dsn, err := pgtest.Create(context.Background(), pgtest.AdminURL(), migrated)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pgtest.Drop(context.Background(), pgtest.AdminURL(), name) })
	return dsn
}

// queryValue runs query, which yields one row of one column, on the
// package database and returns that value.
func queryValue[T any](t *testing.T, query string, args ...any) T {
	t.Helper()
	var v T
	if err := pgtest.Open(t, testDSN).NewRaw(query, args...).Scan(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// waitListenerClosed waits until srv's listener refuses connections: the
// server, sent SIGTERM at stopped, drains with SHUTDOWN_DELAY delay. It
// fails t when the listener still accepts them limit after stopped.
func waitListenerClosed(t *testing.T, srv *server, stopped time.Time, delay, limit time.Duration) {
	t.Helper()
	addr := strings.TrimPrefix(srv.URL, "http://")
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return // the listener is closed: the server drains
		}
		_ = c.Close()
		if time.Since(stopped) > limit {
			t.Fatalf("the listener still accepts %s after SIGTERM (SHUTDOWN_DELAY %s)", time.Since(stopped), delay)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mustJSON is v in JSON.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seedFixture writes doc to a file and seeds it.
func seedFixture(t testing.TB, dsn string, doc any) {
	t.Helper()
	b := mustJSON(t, doc)
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, baseEnv(dsn), "seed", "--file", path)
}

// seedOnce returns a function that runs setup (seeding a fixture, minting
// its tokens) in the first test that calls it, once per test binary; a
// later test fails at once when that setup did not finish (the first
// test's failure says why).
func seedOnce(name string, setup func(t *testing.T)) func(t *testing.T) {
	var (
		once sync.Once
		done bool
	)
	return func(t *testing.T) {
		t.Helper()
		once.Do(func() { setup(t); done = true })
		if !done {
			t.Fatalf("the %s fixture could not be set up (see the first test that failed)", name)
		}
	}
}

// seedFixtureOnce is seedOnce of seeding fixture's document in testDSN.
func seedFixtureOnce(name string, fixture func() map[string]any) func(t *testing.T) {
	return seedOnce(name, func(t *testing.T) { seedFixture(t, testDSN, fixture()) })
}

// server is a running `fulfillment serve`.
type server struct {
	URL     string
	cmd     *exec.Cmd
	stderr  *syncBuffer
	exited  chan struct{} // closed when the process has exited
	waitErr error         // set before exited is closed
	stop    sync.Once
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Logs returns what the server wrote on stderr so far.
func (s *server) Logs() string { return s.stderr.String() }

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// startServer runs `fulfillment serve` on a free port with env and waits
// until /readyz answers 200. The server is stopped with SIGTERM when the
// test ends, and must then exit 0.
func startServer(t testing.TB, env []string) *server {
	t.Helper()
	s := launchServer(t, env)
	s.waitFor(t, "/readyz", http.StatusOK)
	return s
}

// launchServer starts `fulfillment serve` without waiting for it.
func launchServer(t testing.TB, env []string) *server {
	t.Helper()
	return launchBinary(t, binPath, env)
}

// launchBinary starts `serve` of the binary bin without waiting for it.
func launchBinary(t testing.TB, bin string, env []string) *server {
	t.Helper()
	addr := freeAddr(t)
	answers.Check(addr)
	// After the server has stopped (cleanups run last first): the port is
	// free again, and a later server or tool of these tests may get it.
	t.Cleanup(func() { answers.Uncheck(addr) })
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append([]string{}, env...), "HTTP_ADDR="+addr)
	s := &server{URL: "http://" + addr, cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// waitFor polls path until it answers status, failing after 30 s or when
// the server exits.
func (s *server) waitFor(t testing.TB, path string, status int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + path)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == status {
				return
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("server exited while waiting for %s %d: %v\n%s", path, status, s.waitErr, s.Logs())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer %d within 30s\n%s", path, status, s.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop sends SIGTERM (once) and checks that the server exits 0 within 30 s.
func (s *server) Stop(t testing.TB) {
	t.Helper()
	s.stop.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		if err := s.Wait(30 * time.Second); err != nil {
			t.Errorf("server exit: %v\n%s", err, s.Logs())
		}
	})
}

// Wait waits for the process to exit and returns its exit error.
func (s *server) Wait(limit time.Duration) error {
	select {
	case <-s.exited:
		return s.waitErr
	case <-time.After(limit):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("did not exit within %s", limit)
	}
}

// mintToken returns an access token for org with scopes.
func mintToken(t testing.TB, org string, scopes ...string) string {
	t.Helper()
	return strings.TrimSpace(mustCLI(t, baseEnv(testDSN), "token", "mint", "--org", org, "--scopes", strings.Join(scopes, ",")))
}

// mintWarehouseToken returns an access token of a warehouse's management
// system (scope warehouse unless scopes say otherwise).
func mintWarehouseToken(t testing.TB, warehouse string, scopes ...string) string {
	t.Helper()
	if scopes == nil {
		scopes = []string{"warehouse"}
	}
	return strings.TrimSpace(mustCLI(t, baseEnv(testDSN), "token", "mint", "--warehouse", warehouse, "--scopes", strings.Join(scopes, ",")))
}

// response is a finished HTTP exchange.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, r.Body)
	}
}

// do sends one request. body may be nil, a []byte, a string or a value
// marshalled as JSON; headers are name/value pairs.
func do(t testing.TB, method, url string, body any, headers ...string) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		rd = bytes.NewReader(mustJSON(t, b))
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// problem is the problem+json body of every error but the intake's.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	Parameter string `json:"parameter"`
}

// wantProblem checks status, content type and code of a problem response.
func wantProblem(t testing.TB, r response, status int, code string) problem {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	var p problem
	r.JSON(t, &p)
	if p.Code != code || p.Status != status || p.Type != "about:blank" || p.Title == "" {
		t.Fatalf("problem %+v, want status %d code %s", p, status, code)
	}
	return p
}
