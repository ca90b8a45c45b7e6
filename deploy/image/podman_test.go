package image_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq" // PostgreSQL driver: the test makes a database of its own

	"github.com/acme3pl/fulfillment/deploy/image"
	"github.com/acme3pl/fulfillment/deploy/internal/testenv"
)

// testSigningKey signs the token the image itself mints.
const testSigningKey = "image-test-signing-key-0123456789abcdef"

// The image as the platform runs it: built from the current source by
// `make image`, loaded by podman, migrating a real PostgreSQL from a one-off
// container, then serving /readyz and the API from a read-only root file
// system as UID 65532.
func TestImageRunsWithPodman(t *testing.T) {
	podmanBin := testenv.Tool(t, "podman")
	suffix := randomHex(t)
	version := "test-" + suffix
	dir := t.TempDir()

	ref := strings.TrimSpace(mustRun(t, 10*time.Minute, testenv.Root(t), "make", "-s", "image", "VERSION="+version, "IMAGE_DIR="+dir))
	if want := "localhost/fulfillment:" + version; ref != want {
		t.Fatalf("make image printed %q, want %q", ref, want)
	}
	podman := func(args ...string) string {
		t.Helper()
		return mustRun(t, 3*time.Minute, dir, podmanBin, append([]string{"--runtime", "runc"}, args...)...)
	}
	loaded := podman("load", "-i", filepath.Join(dir, "fulfillment.tar"))
	t.Cleanup(func() { _, _ = testenv.Run(time.Minute, dir, podmanBin, "rmi", "-f", ref) })
	if !strings.Contains(loaded, "Loaded image: "+ref) {
		t.Fatalf("podman load: %q does not name %s", loaded, ref)
	}

	var inspected []struct {
		Config struct {
			User       string
			Entrypoint []string
			Cmd        []string
			Labels     map[string]string
		}
	}
	if err := json.Unmarshal([]byte(podman("image", "inspect", ref)), &inspected); err != nil || len(inspected) != 1 {
		t.Fatalf("podman image inspect: %v", err)
	}
	cfg := inspected[0].Config
	if cfg.User != "65532:65532" || strings.Join(cfg.Entrypoint, " ") != image.BinaryPath ||
		strings.Join(cfg.Cmd, " ") != "serve" || cfg.Labels["org.opencontainers.image.version"] != version {
		t.Fatalf("image config: %+v", cfg)
	}

	// Every container: read-only root (no tmpfs added either, as in Kubernetes), host network, lowered
	// limits (the defaults are refused here), runc (crun fails here).
	runFlags := []string{"--network=host", "--read-only", "--read-only-tmpfs=false",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}
	runOnce := func(env []string, args ...string) string {
		t.Helper()
		cmd := append([]string{"run", "--rm"}, runFlags...)
		for _, e := range env {
			cmd = append(cmd, "-e", e)
		}
		return podman(append(append(cmd, ref), args...)...)
	}
	if got := runOnce(nil, "version"); got != version+"\n" {
		t.Fatalf("version printed %q, want %q", got, version+"\n")
	}
	certs := podman("create", ref)
	cid := strings.TrimSpace(certs)
	podman("cp", cid+":"+image.CACertPath, filepath.Join(dir, "ca.crt"))
	podman("rm", cid)
	if a, b := testenv.ReadFile(t, filepath.Join(dir, "ca.crt")), testenv.ReadFile(t, "/etc/ssl/certs/ca-certificates.crt"); a != b {
		t.Fatal("the image's CA certificates differ from the build machine's")
	}

	dsn := createDatabase(t, "fulfillment_image_"+suffix)
	env := []string{"DATABASE_URL=" + dsn, "AUTH_SIGNING_KEY=" + testSigningKey, "OTEL_TRACES_EXPORTER=none", "SHUTDOWN_DELAY=0s"}
	runOnce(env, "migrate", "up")

	addr := freeAddr(t)
	name := "fulfillment-test-" + suffix
	args := append([]string{"run", "-d", "--name", name}, runFlags...)
	for _, e := range append(env, "HTTP_ADDR="+addr) {
		args = append(args, "-e", e)
	}
	podman(append(args, ref)...) // default command: serve
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := testenv.Run(time.Minute, dir, podmanBin, "logs", name)
			t.Logf("server logs:\n%s", logs)
		}
		_, _ = testenv.Run(time.Minute, dir, podmanBin, "rm", "-f", "-t", "5", name)
	})
	base := "http://" + addr
	waitReady(t, base+"/readyz", func() bool {
		state, _ := testenv.Run(time.Minute, dir, podmanBin, "inspect", "--format", "{{.State.Running}}", name)
		return strings.TrimSpace(state) == "true"
	})

	// token mint checks that the organization exists: one, written here.
	orgDB, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = orgDB.Close() }()
	if _, err := orgDB.Exec(`INSERT INTO organizations (id, name) VALUES ('org_image', 'Image')`); err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(runOnce(env, "token", "mint", "--org", "org_image", "--scopes", "locations"))
	req, _ := http.NewRequest(http.MethodGet, base+"/v0/warehouses", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var warehouses []any
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &warehouses) != nil {
		t.Fatalf("GET /v0/warehouses: %d %s", resp.StatusCode, body)
	}

	// The server's process, seen from the host (no user namespace): every UID is 65532, which the
	// image's /etc/passwd names nonroot.
	pid := strings.TrimSpace(podman("inspect", "--format", "{{.State.Pid}}", name))
	status := testenv.ReadFile(t, "/proc/"+pid+"/status")
	if !strings.Contains(status, "\nUid:\t65532\t65532\t65532\t65532\n") || !strings.Contains(status, "\nGid:\t65532\t65532\t65532\t65532\n") {
		t.Fatalf("the server's process (pid %s) does not run as 65532:65532:\n%s", pid, status)
	}
	if top := strings.Fields(podman("top", name, "user")); len(top) != 2 || top[1] != "nonroot" {
		t.Fatalf("podman top %s user: %q, want nonroot", name, top)
	}
}

func mustRun(t *testing.T, timeout time.Duration, dir, name string, args ...string) string {
	t.Helper()
	out, err := testenv.Run(timeout, dir, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randomHex(t *testing.T) string {
	t.Helper()
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().String()
}

// createDatabase makes an empty database on the server of TEST_DATABASE_URL
// (as `make test` exports it), dropped when the test ends, and returns its DSN.
func createDatabase(t *testing.T, name string) string {
	t.Helper()
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	db, err := sql.Open("postgres", admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("PostgreSQL at TEST_DATABASE_URL: %v (start one with: eval \"$(scripts/pg.sh)\", or run make test)", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// waitReady polls url until it answers 200, failing after a minute or as
// soon as running reports the server gone.
func waitReady(t *testing.T, url string, running func() bool) {
	t.Helper()
	client := &http.Client{Timeout: 3 * time.Second}
	deadline := time.Now().Add(time.Minute)
	last := "no answer"
	for time.Now().Before(deadline) {
		resp, err := client.Get(url)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if !running() {
			t.Fatalf("the server's container stopped (last %s: %s)", url, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within a minute (last: %s)", url, last)
}
