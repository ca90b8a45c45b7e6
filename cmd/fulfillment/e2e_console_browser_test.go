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

	"github.com/chromedp/chromedp"
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
	// A form and its action: a same-origin POST in a real browser passes the console's check.
	r.HandleFunc("/form", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(formPage("/form")))
	}).Methods(http.MethodGet)
	r.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("posted " + r.PostFormValue("note")))
	}).Methods(http.MethodPost)
}

// formPage is a page with one form posting a note to action.
func formPage(action string) string {
	return `<!doctype html><html lang="en"><head><title>Form</title></head><body><main><h1>Form</h1>
<form method="post" action="` + action + `"><label for="note">Note</label> <input id="note" name="note">
<button type="submit">Send</button></form></main></body></html>`
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

	// A form of the console's own page is sent; the same form on another origin (another port of
	// the same host: same-site, cross-origin) is refused before its handler runs.
	b.open(srv.URL + "/form")
	b.do("fill the form", chromedp.SendKeys(chromedp.ID("note"), "hello"))
	if status := b.submit("send the form", chromedp.Click(chromedp.CSS("button[type=submit]"))); status != http.StatusOK ||
		b.text() != "posted hello" {
		t.Fatalf("a same-origin form: %d %q, want 200 posted hello", status, b.text())
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(formPage(srv.URL + "/form")))
	}))
	t.Cleanup(other.Close)
	b.open(other.URL)
	b.do("fill the other site's form", chromedp.SendKeys(chromedp.ID("note"), "forged"))
	if status := b.submit("send the other site's form", chromedp.Click(chromedp.CSS("button[type=submit]"))); status != http.StatusForbidden ||
		strings.Contains(b.text(), "posted") {
		t.Fatalf("a form from another origin: %d %q, want 403", status, b.text())
	}
	b.problems(`status of 403`) // the browser logs the refused document
}
