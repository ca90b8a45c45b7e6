package main

// The operator's console in a real browser (headless Chromium, driven from
// Go by chromedp; helpers in console_browser_test.go): its pages load under
// their Content-Security-Policy with nothing refused and no script error,
// axe-core finds no serious or critical accessibility problem on any of
// them, and a full-page screenshot of each is kept.

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/console"
)

// harnessPages serves the console's signed-out page as the console renders
// it, and a control page made to fail every check of the harness.
type harnessPages struct{ views *console.Views }

func (p harnessPages) Register(r *mux.Router, _ console.Guard) {
	r.HandleFunc("/signed-out", func(w http.ResponseWriter, r *http.Request) {
		p.views.Render(w, r, http.StatusOK, "signed_out", nil)
	}).Methods(http.MethodGet)
	// An inline script and an inline style (both refused by the policy) and an image without a
	// text alternative (axe-core: image-alt, critical).
	r.HandleFunc("/control", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><title>Control</title>
<style>body { color: red }</style></head><body><main><h1>Control</h1>
<script>document.title = "ran"</script><img src="/static/console.css"></main></body></html>`))
	}).Methods(http.MethodGet)
}

// TestConsoleBrowserHarness proves the harness on the console's own handler
// (adapters/console, with its security headers): the signed-out page loads
// with its style sheet, nothing refused and axe-core clean, while a control
// page's refused inline script and style and its critical axe finding are
// each caught, so the checks of the journey can fail.
func TestConsoleBrowserHarness(t *testing.T) {
	views, err := console.NewViews()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(console.NewHandler(console.HandlerParams{Routes: []console.Routes{harnessPages{views}}}))
	t.Cleanup(srv.Close)
	b := newBrowser(t)

	if status, _ := b.open(srv.URL + "/healthz"); status != http.StatusOK || strings.TrimSpace(b.text()) != "ok" {
		t.Fatalf("/healthz: %d %q, want 200 ok", status, b.text())
	}

	status, header := b.open(srv.URL + "/signed-out")
	if status != http.StatusOK {
		t.Fatalf("/signed-out: %d", status)
	}
	csp := header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %s", csp, want)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval"} {
		if strings.Contains(csp, bad) {
			t.Errorf("Content-Security-Policy %q allows %s", csp, bad)
		}
	}
	for name, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"} {
		if got := header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	// The style sheet loaded under the policy, and its rules apply.
	if rules := eval[int](b, `[...document.styleSheets].reduce((n, s) => n + s.cssRules.length, 0)`); rules == 0 {
		t.Errorf("the console's style sheet did not load (%d rules)", rules)
	}
	if !strings.Contains(b.text(), "Your session has ended") {
		t.Errorf("the signed-out page reads %q", b.text())
	}
	b.checkPage("signed-out")

	// The control page: each detector must fire.
	b.open(srv.URL + "/control")
	if title := eval[string](b, `document.title`); title == "ran" {
		t.Error("the control page's inline script ran: the policy is not applied")
	}
	problems := b.problems()
	refused := func(what string) bool {
		return slices.ContainsFunc(problems, func(p string) bool {
			return strings.Contains(p, "Content Security Policy") && strings.Contains(p, what)
		})
	}
	if !refused("script") || !refused("style") {
		t.Errorf("the refused inline script and style are not in the console's problems: %q", problems)
	}
	found := false
	for _, v := range b.axeRun() {
		found = found || (v.ID == "image-alt" && v.Impact == "critical")
	}
	if !found {
		t.Error("axe-core did not find the control page's image without alt")
	}
	b.screenshot("control")
}
