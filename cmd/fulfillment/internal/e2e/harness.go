// Package e2e is the end-to-end harness: the real binary, built once per
// test binary, against a PostgreSQL database of the test package's own
// (pgtest), driven over HTTP. Only tests import it: the feature tests live
// in cmd/fulfillment/e2e_*_test.go and cmd/fulfillment/e2e/*/, each package
// with a TestMain that calls Main.
package e2e

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
	"github.com/acme3pl/fulfillment/api/apitest"
)

// TestSigningKey signs the access tokens of the end-to-end tests.
const TestSigningKey = "e2e-signing-key-0123456789abcdef-0123456789"

var (
	BinPath  string // the built binary
	TestDSN  string // the running package's database, migrated
	RepoRoot string // the module's directory
)

// Main is the TestMain of an end-to-end package: it builds the binary
// (./cmd/fulfillment of the module, with the race detector) once, gives the
// package a database of its own (TestDSN), checks every answer against
// api/openapi.yaml, and runs the tests. covers tells which operations of the
// document the package's tests must call in a run of all of them (see
// reportAnswers). Main does not return.
func Main(m *testing.M, covers func(apitest.Operation) bool) {
	os.Exit(func() int {
		root, err := moduleRoot()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		RepoRoot = root
		dir, err := os.MkdirTemp("", "fulfillment-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer func() { _ = os.RemoveAll(dir) }()
		BinPath = filepath.Join(dir, "fulfillment")
		build := exec.Command("go", "build", "-race", "-o", BinPath, "./cmd/fulfillment")
		build.Dir = root
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "build the binary: %v\n", err)
			return 1
		}
		if err := checkAnswers(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return reportAnswers(pgtest.Main(m, &TestDSN), covers)
	}())
}

// moduleRoot is the directory of the module's go.mod, found upwards from
// the working directory (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// BaseEnv is the environment of every command the tests run.
func BaseEnv(dsn string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"DATABASE_URL=" + dsn,
		"AUTH_SIGNING_KEY=" + TestSigningKey,
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

// Result is what a command printed and its exit status.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// RunCLI runs the binary to completion.
func RunCLI(t testing.TB, env []string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, BinPath, args...)
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
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// MustCLI runs the binary and fails the test unless it exits 0.
func MustCLI(t testing.TB, env []string, args ...string) string {
	t.Helper()
	r := RunCLI(t, env, args...)
	if r.Code != 0 {
		t.Fatalf("fulfillment %s: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
	}
	return r.Stdout
}

// FixtureWarehouse is a warehouse of a seed fixture, used by orgs: the
// same dock in Newark for every test, its address named as the warehouse.
func FixtureWarehouse(id, name string, active bool, orgs ...string) map[string]any {
	return map[string]any{"id": id, "name": name, "description": nil, "active": active,
		"address": map[string]any{"name": name, "line1": "1 Dock St", "line2": "", "district": "", "city": "Newark",
			"state": "NJ", "countryCode": "US", "postalCode": "07102"},
		"contact": map[string]any{"name": "Ops", "email": "ops@example.com", "phoneNumber": "+1 555 0100", "fax": ""},
		"tags":    []string{}, "organizations": orgs}
}

// FixtureOrg is an organization of a seed fixture.
func FixtureOrg(id, name string) map[string]any {
	return map[string]any{"id": id, "name": name}
}

// FixtureItem is a product or carton of a seed fixture, named as its SKU.
func FixtureItem(id, org, sku string) map[string]any {
	return map[string]any{"id": id, "organizationId": org, "sku": sku, "name": sku}
}

// ScratchDatabase creates a database of the test's own (migrated or
// empty), dropped when the test ends, and returns its DSN.
func ScratchDatabase(t *testing.T, migrated bool) string {
	t.Helper()
	name, dsn, err := pgtest.Create(context.Background(), pgtest.AdminURL(), migrated)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pgtest.Drop(context.Background(), pgtest.AdminURL(), name) })
	return dsn
}

// QueryValue runs query, which yields one row of one column, on the
// package database and returns that value.
func QueryValue[T any](t *testing.T, query string, args ...any) T {
	t.Helper()
	var v T
	if err := pgtest.Open(t, TestDSN).NewRaw(query, args...).Scan(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// WaitListenerClosed waits until srv's listener refuses connections: the
// server, sent SIGTERM at stopped, drains with SHUTDOWN_DELAY delay. It
// fails t when the listener still accepts them limit after stopped.
func WaitListenerClosed(t *testing.T, srv *Server, stopped time.Time, delay, limit time.Duration) {
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

// MustJSON is v in JSON.
func MustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// SeedFixture writes doc to a file and seeds it.
func SeedFixture(t testing.TB, dsn string, doc any) {
	t.Helper()
	b := MustJSON(t, doc)
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	MustCLI(t, BaseEnv(dsn), "seed", "--file", path)
}

// SeedOnce returns a function that runs setup (seeding a fixture, minting
// its tokens) in the first test that calls it, once per test binary; a
// later test fails at once when that setup did not finish (the first
// test's failure says why).
func SeedOnce(name string, setup func(t *testing.T)) func(t *testing.T) {
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

// SeedFixtureOnce is seedOnce of seeding fixture's document in testDSN.
func SeedFixtureOnce(name string, fixture func() map[string]any) func(t *testing.T) {
	return SeedOnce(name, func(t *testing.T) { SeedFixture(t, TestDSN, fixture()) })
}

// Server is a running `fulfillment serve`.
type Server struct {
	URL     string
	Cmd     *exec.Cmd
	stderr  *SyncBuffer
	exited  chan struct{} // closed when the process has exited
	waitErr error         // set before exited is closed
	stop    sync.Once
}

type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Logs returns what the server wrote on stderr so far.
func (s *Server) Logs() string { return s.stderr.String() }

func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// StartServer runs `fulfillment serve` on a free port with env and waits
// until /readyz answers 200. The server is stopped with SIGTERM when the
// test ends, and must then exit 0.
func StartServer(t testing.TB, env []string) *Server {
	t.Helper()
	s := LaunchServer(t, env)
	s.WaitFor(t, "/readyz", http.StatusOK)
	return s
}

// LaunchServer starts `fulfillment serve` without waiting for it.
func LaunchServer(t testing.TB, env []string) *Server {
	t.Helper()
	return LaunchBinary(t, BinPath, env)
}

// LaunchBinary starts `serve` of the binary bin without waiting for it.
func LaunchBinary(t testing.TB, bin string, env []string) *Server {
	t.Helper()
	addr := FreeAddr(t)
	Answers.Check(addr)
	// After the server has stopped (cleanups run last first): the port is
	// free again, and a later server or tool of these tests may get it.
	t.Cleanup(func() { Answers.Uncheck(addr) })
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append([]string{}, env...), "HTTP_ADDR="+addr)
	s := &Server{URL: "http://" + addr, Cmd: cmd, stderr: &SyncBuffer{}, exited: make(chan struct{})}
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

// WaitFor polls path until it answers status, failing after 30 s or when
// the server exits.
func (s *Server) WaitFor(t testing.TB, path string, status int) {
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
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.stop.Do(func() {
		_ = s.Cmd.Process.Signal(syscall.SIGTERM)
		if err := s.Wait(30 * time.Second); err != nil {
			t.Errorf("server exit: %v\n%s", err, s.Logs())
		}
	})
}

// Wait waits for the process to exit and returns its exit error.
func (s *Server) Wait(limit time.Duration) error {
	select {
	case <-s.exited:
		return s.waitErr
	case <-time.After(limit):
		_ = s.Cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("did not exit within %s", limit)
	}
}

// MintToken returns an access token for org with scopes.
func MintToken(t testing.TB, org string, scopes ...string) string {
	t.Helper()
	return strings.TrimSpace(MustCLI(t, BaseEnv(TestDSN), "token", "mint", "--org", org, "--scopes", strings.Join(scopes, ",")))
}

// MintWarehouseToken returns an access token of a warehouse's management
// system (scope warehouse unless scopes say otherwise).
func MintWarehouseToken(t testing.TB, warehouse string, scopes ...string) string {
	t.Helper()
	if scopes == nil {
		scopes = []string{"warehouse"}
	}
	return strings.TrimSpace(MustCLI(t, BaseEnv(TestDSN), "token", "mint", "--warehouse", warehouse, "--scopes", strings.Join(scopes, ",")))
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, r.Body)
	}
}

// Do sends one request. body may be nil, a []byte, a string or a value
// marshalled as JSON; headers are name/value pairs.
func Do(t testing.TB, method, url string, body any, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		rd = bytes.NewReader(MustJSON(t, b))
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
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Problem is the problem+json body of every error but the intake's.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	Parameter string `json:"parameter"`
}

// WantProblem checks status, content type and code of a problem response.
func WantProblem(t testing.TB, r Response, status int, code string) Problem {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	var p Problem
	r.JSON(t, &p)
	if p.Code != code || p.Status != status || p.Type != "about:blank" || p.Title == "" {
		t.Fatalf("problem %+v, want status %d code %s", p, status, code)
	}
	return p
}
