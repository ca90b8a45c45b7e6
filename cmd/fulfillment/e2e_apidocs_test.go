package main

// End-to-end tests of the interface document's routes: /openapi.yaml, /openapi.json and the
// reference page /docs, read by Go and rendered by a real browser (headless Chromium).

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/api"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

func TestAPIDocumentServed(t *testing.T) {
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))

	yml := e2e.Do(t, "GET", srv.URL+"/openapi.yaml", nil)
	if yml.Status != 200 || !bytes.Equal(yml.Body, api.YAML()) {
		t.Fatalf("GET /openapi.yaml: %d, %d bytes; want 200 and api/openapi.yaml", yml.Status, len(yml.Body))
	}
	js := e2e.Do(t, "GET", srv.URL+"/openapi.json", nil)
	want, err := api.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if js.Status != 200 || !bytes.Equal(js.Body, want) {
		t.Fatalf("GET /openapi.json: %d, %d bytes; want 200 and the document in JSON", js.Status, len(js.Body))
	}
	// Unchanged content is revalidated, not sent again.
	for path, r := range map[string]e2e.Response{"/openapi.yaml": yml, "/openapi.json": js} {
		etag := r.Header.Get("ETag")
		if again := e2e.Do(t, "GET", srv.URL+path, nil, "If-None-Match", etag); etag == "" || again.Status != 304 {
			t.Fatalf("GET %s with If-None-Match %s: %d, want 304", path, etag, again.Status)
		}
	}

	page := e2e.Do(t, "GET", srv.URL+"/docs", nil)
	if page.Status != 200 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs: %d %s", page.Status, page.Header.Get("Content-Type"))
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "http") {
		t.Fatalf("Content-Security-Policy %q must allow nothing but the service itself", csp)
	}
	src := regexp.MustCompile(`<script src="([^"]+)"`).FindSubmatch(page.Body)
	if src == nil {
		t.Fatalf("no script in the page:\n%s", page.Body)
	}
	script := e2e.Do(t, "GET", srv.URL+"/"+html.UnescapeString(string(src[1])), nil)
	if script.Status != 200 || !bytes.Equal(script.Body, api.RedocScript()) {
		t.Fatalf("GET %s: %d, %d bytes", src[1], script.Status, len(script.Body))
	}
	if r := e2e.Do(t, "GET", srv.URL+"/docs/redoc.standalone.js", nil, "If-None-Match", script.Header.Get("ETag")); r.Status != 304 {
		t.Fatalf("the script with its ETag: %d, want 304", r.Status)
	}
	if r := e2e.Do(t, "GET", srv.URL+"/docs", nil, "If-None-Match", `"other", `+page.Header.Get("ETag")); r.Status != 304 {
		t.Fatalf("the page with its ETag in a list: %d, want 304", r.Status)
	}

	// The operations no other test calls.
	for _, path := range []string{"/healthz", "/readyz"} {
		if r := e2e.Do(t, "HEAD", srv.URL+path, nil); r.Status != 200 || len(r.Body) != 0 {
			t.Fatalf("HEAD %s: %d, %d bytes", path, r.Status, len(r.Body))
		}
	}
	if r := e2e.Do(t, "GET", srv.URL+"/metrics", nil, "Accept", "application/openmetrics-text; version=1.0.0"); r.Status != 200 {
		t.Fatalf("GET /metrics: %d", r.Status)
	}
}

// TestAPIReferencePageInBrowser loads /docs in headless Chromium: the rendered page shows every
// operation of the document, and every request the page made went to the service itself.
func TestAPIReferencePageInBrowser(t *testing.T) {
	chromium := tool(t, "chromium")
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN))
	dir := t.TempDir()
	netLog := filepath.Join(dir, "net-log.json")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		// Nothing leaves the machine, whatever the page or the browser tries.
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
		"--log-net-log="+netLog,
		"--enable-logging=stderr", "--v=0",
		// Let the page's scripts fetch the document and render it before the DOM is dumped.
		"--virtual-time-budget=30000",
		"--dump-dom", srv.URL+"/docs")
	var dom, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dom, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr.String(), 3000))
	}

	text := html.UnescapeString(dom.String())
	var missing []string
	for _, op := range e2e.Answers.Validator.Operations() {
		if !strings.Contains(text, op.Summary) || !strings.Contains(text, "operation/"+op.ID) {
			missing = append(missing, op.String()+" ("+op.Summary+")")
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the rendered page lacks these operations: %v\n%s", missing, tail(text, 2000))
	}

	requests := pageRequests(t, netLog, srv.URL)
	u, _ := url.Parse(srv.URL)
	var sawDocument bool
	for _, r := range requests {
		ru, err := url.Parse(r)
		if err != nil || ru.Host != u.Host {
			t.Errorf("the page requested %s, which is not the service", r)
		}
		sawDocument = sawDocument || ru.Path == "/openapi.json"
	}
	if !sawDocument {
		t.Fatalf("the page's requests %v do not include /openapi.json: the net log is not read right", requests)
	}
	// Resources the Content-Security-Policy refused never left the browser; Redoc's footer
	// logo (an image on Redocly's CDN) is one. They are shown, not failed.
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "Content Security Policy") {
			t.Logf("refused by the page's Content-Security-Policy: %s", line)
		}
	}
}

// pageRequests returns the URLs of the requests the page at origin started, read from a
// Chromium net log (the browser's own background requests have no page origin).
func pageRequests(t *testing.T, netLog, origin string) []string {
	t.Helper()
	b, err := os.ReadFile(netLog)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	// Chromium may be stopped before it closes the log's JSON; the events written are complete.
	if err := json.Unmarshal(b, &log); err != nil {
		if err := json.Unmarshal(append(bytes.TrimRight(bytes.TrimSpace(b), ","), "]}"...), &log); err != nil {
			t.Fatalf("read the net log: %v", err)
		}
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("the net log names no URL_REQUEST_START_JOB event")
	}
	var urls []string
	for _, e := range log.Events {
		if e.Type == start && e.Params.Initiator == origin {
			urls = append(urls, e.Params.URL)
		}
	}
	return urls
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
