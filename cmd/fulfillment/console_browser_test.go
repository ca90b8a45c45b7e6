package main

// The browser harness of the operator's console's tests: one headless
// Chromium (Debian's, from scripts/tools.sh) per test, driven by chromedp,
// that watches the page's console (script errors, refusals of the
// Content-Security-Policy), runs axe-core's WCAG 2 A and AA rules on a page
// and keeps a full-page screenshot of it under .tmp/console-screenshots/.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// screenshotRoot is where the console's tests keep their screenshots, one
// folder per test (emptied when it starts), inside the checkout's ignored .tmp.
const screenshotRoot = "../../.tmp/console-screenshots"

// stepTimeout bounds one step of a browser test (a page load, a form, axe).
const stepTimeout = 30 * time.Second

// browser is a headless Chromium with one tab, for one test.
type browser struct {
	t        *testing.T
	ctx      context.Context // the tab's
	axe      string          // axe.min.js
	shots    string          // this test's screenshot folder
	shotNum  int
	mu       sync.Mutex
	messages []chromedp.ConsoleMessage // the tab's console since the last take
	fence    int
}

// newBrowser starts Chromium for t: headless, no GPU, a fresh profile, no
// sandbox when running as root (Chromium's sandbox refuses root), and no
// host name resolved but 127.0.0.1, so that nothing the pages or the
// browser ask for leaves the machine. It stops when t ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	chromium := tool(t, "chromium")
	axe, err := os.ReadFile(tool(t, "axe-core"))
	if err != nil {
		t.Fatal(err)
	}
	shots, err := filepath.Abs(filepath.Join(screenshotRoot, regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(shots); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots: %s", shots)

	profile := t.TempDir() // removed after the browser has stopped (cleanups run last first)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
		chromedp.Flag("disable-component-update", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx, axe: string(axe), shots: shots}
	// The first action starts the browser, with no deadline (a deadline there would bound the
	// browser's life); every later step has its own.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.messages = append(b.messages, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// step is a context for one step: the tab's, with the step's deadline.
func (b *browser) step() (context.Context, context.CancelFunc) {
	return context.WithTimeout(b.ctx, stepTimeout)
}

// open loads url and returns the document's status and headers.
func (b *browser) open(url string) (int, http.Header) {
	b.t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
	return int(resp.Status), responseHeader(resp.Headers)
}

// submit runs the steps (filling a form and clicking its button) and waits
// for the page they lead to; it returns that page's status.
func (b *browser) submit(what string, steps ...chromedp.Action[chromedp.Void]) int {
	b.t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, steps...)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return int(resp.Status)
}

// do runs steps that load no page.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a script in the page and decodes its value into T.
func eval[T any](b *browser, script string, opts ...chromedp.EvaluateOption) T {
	b.t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script, opts...))
	if err != nil {
		b.t.Fatalf("evaluate %.80s: %v", script, err)
	}
	return v
}

// text is the page's visible text.
func (b *browser) text() string {
	b.t.Helper()
	return eval[string](b, `document.body.innerText`)
}

// location is the page's URL.
func (b *browser) location() string {
	b.t.Helper()
	return eval[string](b, `location.href`)
}

// console returns what the tab wrote to its console since the last call: a
// message logged last by the harness (a fence) is waited for, so that every
// message of what ran before is in.
func (b *browser) console() []chromedp.ConsoleMessage {
	b.t.Helper()
	b.fence++
	mark := fmt.Sprintf("harness-fence-%d", b.fence)
	eval[chromedp.Void](b, fmt.Sprintf(`console.debug(%q)`, mark))
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		for i, m := range b.messages {
			if m.Type == chromedp.ConsoleDebug && m.Text == mark {
				got := append([]chromedp.ConsoleMessage(nil), b.messages[:i]...)
				b.messages = append(b.messages[:0], b.messages[i+1:]...)
				b.mu.Unlock()
				return got
			}
		}
		b.mu.Unlock()
		if time.Now().After(deadline) {
			b.t.Fatalf("the console's message %s did not arrive within 5 s", mark)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// browserNoise are console messages that come from the browser, not from the
// page: Chromium asks every origin for /favicon.ico, which the console does
// not serve (its pages name no icon).
var browserNoise = []string{`status of 404 .*/favicon\.ico:`}

// problems are the console's errors, warnings and exceptions since the last
// call, except the browser's noise and those matching one of allowed
// (regular expressions).
func (b *browser) problems(allowed ...string) []string {
	b.t.Helper()
	allowed = append(allowed, browserNoise...)
	var out []string
	for _, m := range b.console() {
		if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleWarning && m.Type != chromedp.ConsoleException {
			continue
		}
		text := fmt.Sprintf("%s (%s %s:%d)", m, m.Source, m.URL, m.Line+1)
		ok := false
		for _, a := range allowed {
			ok = ok || regexp.MustCompile(a).MatchString(text)
		}
		if !ok {
			out = append(out, text)
		}
	}
	return out
}

// axeViolation is one rule axe-core found broken, with the elements.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		HTML    string `json:"html"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

func (v axeViolation) String() string {
	var nodes []string
	for _, n := range v.Nodes {
		nodes = append(nodes, fmt.Sprintf("%v %s", n.Target, strings.ReplaceAll(n.Summary, "\n", " ")))
	}
	return fmt.Sprintf("%s %s: %s [%s]", v.Impact, v.ID, v.Help, strings.Join(nodes, "; "))
}

// axe runs axe-core's WCAG 2 A and AA rules on the page as it is and returns
// what they find. The script is evaluated through DevTools, which the
// page's Content-Security-Policy does not govern.
func (b *browser) axeRun() []axeViolation {
	b.t.Helper()
	if !eval[bool](b, `typeof window.axe === "object"`) {
		eval[chromedp.Void](b, b.axe)
	}
	raw := eval[string](b, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa"]}, resultTypes: ["violations"]})
		.then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise)
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		b.t.Fatalf("axe's answer: %v\n%.500s", err, raw)
	}
	return vs
}

// checkPage is what every page of the console must pass: axe-core finds no
// serious or critical problem (the others are logged), the console shows no
// error (but those matching allowed), and a full-page screenshot named name
// is kept.
func (b *browser) checkPage(name string, allowed ...string) {
	b.t.Helper()
	where := b.location()
	for _, v := range b.axeRun() {
		if v.Impact == "serious" || v.Impact == "critical" {
			b.t.Errorf("%s (%s): axe-core: %s", name, where, v)
		} else {
			b.t.Logf("%s (%s): axe-core, %s", name, where, v)
		}
	}
	for _, p := range b.problems(allowed...) {
		b.t.Errorf("%s (%s): the console shows %s", name, where, p)
	}
	b.screenshot(name)
}

// screenshot keeps a full-page PNG of the page, numbered in the test's order.
func (b *browser) screenshot(name string) string {
	b.t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	b.shotNum++
	file := filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.shotNum, name))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return file
}

// responseHeader turns DevTools' header map into an http.Header.
func responseHeader(h map[string]any) http.Header {
	out := http.Header{}
	for k, v := range h {
		for _, line := range strings.Split(fmt.Sprint(v), "\n") {
			out.Add(k, line)
		}
	}
	return out
}

// signIn fills the OpenID provider's login form the browser is on (its
// development form: any password) as login, and follows the provider's
// pages (a consent form, if it shows one) back to the console.
func (b *browser) signIn(provider, login string) {
	b.t.Helper()
	start := b.location()
	for range 3 {
		if !strings.HasPrefix(b.location(), provider+"/") {
			return
		}
		switch {
		case eval[bool](b, `!!document.querySelector("input[name=login]")`):
			b.do("fill the provider's login form",
				chromedp.SendKeys(chromedp.CSS("input[name=login]"), login),
				chromedp.SendKeys(chromedp.CSS("input[name=password]"), "any password"))
			b.submit("sign in at the provider", chromedp.Click(chromedp.CSS("button[type=submit]")))
		default:
			b.submit("confirm at the provider", chromedp.Click(chromedp.CSS("form button[type=submit]")))
		}
	}
	b.t.Fatalf("signing in from %s did not come back to the console: at %s", start, b.location())
}

// signOut opens page and sends its header's Sign out form.
func (b *browser) signOut(page string) {
	b.t.Helper()
	b.open(page)
	if status := b.submit("sign out", chromedp.Click(chromedp.CSS("form.signout button"))); status != http.StatusOK {
		b.t.Fatalf("sign out: %d at %s", status, b.location())
	}
	b.checkPage("signed-out")
}

// clearCookies forgets every cookie of the browser: the provider's session
// too, so that the next sign-in shows its login form again.
func (b *browser) clearCookies() {
	b.t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		b.t.Fatalf("clear the cookies: %v", err)
	}
}
