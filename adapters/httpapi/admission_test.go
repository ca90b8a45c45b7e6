package httpapi_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// admissionRoutes serves /v0/slow behind an Admission: the handler blocks
// until release is closed (or, with ignoreContext false, until its context
// ends, answering with the context's error as a real handler would).
type admissionRoutes struct {
	adm           *httpapi.Admission
	errs          httpapi.ErrorMapper
	release       chan struct{}
	ignoreContext bool
	started       chan time.Time // the handler's context deadline, once per request
	late          chan error     // what a write after the deadline returned
}

func newAdmissionRoutes(timeout time.Duration, capacity int) *admissionRoutes {
	log := slog.New(slog.DiscardHandler)
	return &admissionRoutes{
		adm: httpapi.NewAdmission(timeout, capacity, log), errs: httpapi.ErrorMapper{Log: log},
		release: make(chan struct{}), started: make(chan time.Time, 64), late: make(chan error, 64),
	}
}

func (a *admissionRoutes) Register(r *mux.Router) {
	r.Handle("/v0/slow", a.adm.Guard(a.errs.Write, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := r.Context().Deadline()
		a.started <- d
		if a.ignoreContext {
			<-a.release
			_, err := w.Write([]byte(`{"late":true}`))
			a.late <- err
			return
		}
		select {
		case <-a.release:
			httpapi.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
		case <-r.Context().Done():
			a.errs.Write(w, r, r.Context().Err())
		}
	}))).Methods(http.MethodGet)
}

// A request that finds every slot taken waits for one and is served when
// one comes free within the wait budget (half the deadline); its deadline
// counts from its arrival. Nothing is shed.
func TestAdmissionWaitingRequestIsServed(t *testing.T) {
	routes := newAdmissionRoutes(4*time.Second, 1)
	s := newTestServer(t, routes)
	first := make(chan int, 1)
	go func() { first <- s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)).Code }()
	<-routes.started // the only slot is taken

	start := time.Now()
	second := make(chan int, 1)
	go func() { second <- s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)).Code }()
	time.Sleep(300 * time.Millisecond)
	select {
	case d := <-routes.started:
		t.Fatalf("the second request ran while the slot was taken (deadline %s)", d.Sub(start))
	case code := <-second:
		t.Fatalf("the second request was answered %d while the slot was taken, want it to wait", code)
	default:
	}
	close(routes.release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("the first request: %d, want 200", code)
	}
	if code := <-second; code != http.StatusOK {
		t.Errorf("the waiting request: %d, want 200", code)
	}
	if d := <-routes.started; !d.Before(start.Add(4 * time.Second)) {
		t.Errorf("the waiting request's handler deadline is %s after its arrival, want before the 4s deadline", d.Sub(start))
	}
	if got := testutil.ToFloat64(s.metrics.RequestsShed.WithLabelValues("/v0/slow")); got != 0 {
		t.Errorf("shed counter %v, want 0", got)
	}
}

// A request that would still be waiting when half its deadline has passed
// is shed then, with 503 and Retry-After; the admitted ones are served.
func TestAdmissionShedsWhatWaitsBeyondTheBudget(t *testing.T) {
	routes := newAdmissionRoutes(2*time.Second, 2) // a wait budget of 1s
	s := newTestServer(t, routes)
	var wg sync.WaitGroup
	results := make(chan int, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)).Code
		}()
	}
	<-routes.started
	<-routes.started // two in flight

	start := time.Now()
	w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil))
	elapsed := time.Since(start)
	wantShed(t, w, "a third request")
	if elapsed < time.Second || elapsed > 1900*time.Millisecond {
		t.Errorf("shed after %s, want when the 1s wait budget ran out, before the 2s deadline", elapsed)
	}
	close(routes.release)
	wg.Wait()
	close(results)
	for code := range results {
		if code != http.StatusOK {
			t.Errorf("an admitted request answered %d", code)
		}
	}
	if got := testutil.ToFloat64(s.metrics.RequestsShed.WithLabelValues("/v0/slow")); got != 1 {
		t.Errorf("shed counter %v, want 1", got)
	}
	if got := testutil.ToFloat64(s.metrics.RequestsTimedOut.WithLabelValues("/v0/slow")); got != 0 {
		t.Errorf("timed-out counter %v, want 0", got)
	}
	// The slots are free again.
	if w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)); w.Code != http.StatusOK {
		t.Errorf("a request after the others: %d, want 200", w.Code)
	}
}

// wantShed fails unless w (what the test calls it) is the answer to a shed
// request: 503 with Retry-After, code unavailable.
func wantShed(t *testing.T, w *httptest.ResponseRecorder, what string) {
	t.Helper()
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("%s: %d (Retry-After %q), want 503 with Retry-After", what, w.Code, w.Header().Get("Retry-After"))
	}
	if p := problemOf(t, w); p.Code != "unavailable" {
		t.Errorf("problem %+v, want code unavailable", p)
	}
}

// Once requests have waited for a slot longer than the target through an
// interval (the queue stands: overload), a new arrival that finds no free
// slot is refused at once with 503 and Retry-After, not after the wait
// budget; the requests queued before are still served. Each decision is
// counted.
func TestAdmissionShedsAtOnceWhenTheQueueStands(t *testing.T) {
	routes := newAdmissionRoutes(4*time.Second, 1) // a wait budget of 2s
	decisions := telemetry.NewMetrics().FairUse.AdmissionDecisions
	routes.adm = httpapi.NewAdmission(4*time.Second, 1, slog.New(slog.DiscardHandler),
		httpapi.WithAdaptiveQueue(5*time.Millisecond, 50*time.Millisecond), httpapi.WithDecisionCounter(decisions))
	s := newTestServer(t, routes)
	first := make(chan int, 1)
	go func() { first <- s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)).Code }()
	<-routes.started // the only slot is taken
	second := make(chan int, 1)
	go func() { second <- s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)).Code }()
	time.Sleep(300 * time.Millisecond) // the second waits through whole intervals

	start := time.Now()
	w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil))
	elapsed := time.Since(start)
	wantShed(t, w, "a request while the queue stands")
	if elapsed > time.Second {
		t.Errorf("shed after %s, want at once (the wait budget is 2s)", elapsed)
	}
	close(routes.release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("the first request: %d, want 200", code)
	}
	if code := <-second; code != http.StatusOK {
		t.Errorf("the request queued before the overload: %d, want 200", code)
	}
	for decision, want := range map[string]float64{"admitted": 1, "queued": 1, "shed_at_once": 1, "shed_waited": 0} {
		if got := testutil.ToFloat64(decisions.WithLabelValues(decision)); got != want {
			t.Errorf("decisions %s: %v, want %v", decision, got, want)
		}
	}
	if got := testutil.ToFloat64(s.metrics.RequestsShed.WithLabelValues("/v0/slow")); got != 1 {
		t.Errorf("shed counter %v, want 1", got)
	}
	// With the slot free, a request is served whatever the queue's verdict.
	if w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)); w.Code != http.StatusOK {
		t.Errorf("a request after the others: %d, want 200", w.Code)
	}
}

// A client that leaves while waiting for a slot is recorded as 499, not
// shed.
func TestAdmissionClientLeavingWhileWaitingIs499(t *testing.T) {
	routes := newAdmissionRoutes(10*time.Second, 1)
	s := newTestServer(t, routes)
	done := make(chan int, 1)
	go func() { done <- s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)).Code }()
	<-routes.started
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil).WithContext(ctx))
	if w.Code != 499 || time.Since(start) > 2*time.Second {
		t.Fatalf("status %d after %s, want 499 when the client left", w.Code, time.Since(start))
	}
	if got := testutil.ToFloat64(s.metrics.RequestsShed.WithLabelValues("/v0/slow")); got != 0 {
		t.Errorf("shed counter %v, want 0", got)
	}
	close(routes.release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("the admitted request: %d, want 200", code)
	}
}

// Health and metrics routes are not behind admission: with every slot
// taken and requests waiting, they answer at once.
func TestAdmissionNeverShedsHealthRoutes(t *testing.T) {
	routes := newAdmissionRoutes(10*time.Second, 1)
	h := httpapi.NewHealth(&fakeReadiness{}, telemetry.NewMetrics())
	s := newTestServer(t, routes, h)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { _ = s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)) })
	}
	<-routes.started // the slot is taken; two wait
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		start := time.Now()
		w := s.do(httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK || time.Since(start) > time.Second {
			t.Errorf("%s: %d after %s, want 200 at once", path, w.Code, time.Since(start))
		}
	}
	close(routes.release)
	wg.Wait()
}

// A handler's context ends before the request deadline, so that it answers
// for itself; the answer is a 503 timeout, counted.
func TestAdmissionGivesTheHandlerADeadline(t *testing.T) {
	routes := newAdmissionRoutes(400*time.Millisecond, 1)
	s := newTestServer(t, routes)
	start := time.Now()
	w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil))
	elapsed := time.Since(start)
	deadline := <-routes.started
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, want 503 with Retry-After", w.Code)
	}
	if !deadline.Before(start.Add(400 * time.Millisecond)) {
		t.Errorf("the handler's deadline %s is not before the request's", deadline.Sub(start))
	}
	if elapsed > 400*time.Millisecond {
		t.Errorf("answered after %s, want within the 400ms deadline", elapsed)
	}
	if got := testutil.ToFloat64(s.metrics.RequestsTimedOut.WithLabelValues("/v0/slow")); got != 1 {
		t.Errorf("timed-out counter %v, want 1", got)
	}
}

// A handler that ignores its context is answered for at the deadline; what
// it writes later is dropped.
func TestAdmissionAnswersForAStuckHandler(t *testing.T) {
	routes := newAdmissionRoutes(300*time.Millisecond, 1)
	routes.ignoreContext = true
	s := newTestServer(t, routes)
	start := time.Now()
	w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil))
	if elapsed := time.Since(start); w.Code != http.StatusServiceUnavailable || elapsed > time.Second {
		t.Fatalf("%d after %s, want 503 at the 300ms deadline", w.Code, elapsed)
	}
	if strings.Contains(w.Body.String(), `"late":true`) {
		t.Fatalf("the late answer leaked: %s", w.Body)
	}
	// The answer is the route's own 503: a problem, with Retry-After,
	// counted as a timeout.
	if p := problemOf(t, w); p.Code != "unavailable" || w.Header().Get("Retry-After") == "" ||
		w.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("answer %v %+v, want a problem unavailable with Retry-After", w.Header(), p)
	}
	if got := testutil.ToFloat64(s.metrics.RequestsTimedOut.WithLabelValues("/v0/slow")); got != 1 {
		t.Errorf("timed-out counter %v, want 1", got)
	}
	close(routes.release)
	if err := <-routes.late; !errors.Is(err, http.ErrHandlerTimeout) {
		t.Errorf("a write after the deadline returned %v, want http.ErrHandlerTimeout", err)
	}
	// The slot is free again once the stuck handler has returned.
	routes.ignoreContext = false
	routes.release = make(chan struct{})
	close(routes.release)
	if w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil)); w.Code != http.StatusOK {
		t.Errorf("the next request: %d, want 200", w.Code)
	}
}

// A client that goes away is recorded as 499, not as an error of the
// service.
func TestAdmissionRecordsClientsThatLeaveAs499(t *testing.T) {
	routes := newAdmissionRoutes(10*time.Second, 1)
	routes.ignoreContext = true
	s := newTestServer(t, routes)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-routes.started
		cancel()
	}()
	w := s.do(httptest.NewRequest(http.MethodGet, "/v0/slow", nil).WithContext(ctx))
	if w.Code != 499 {
		t.Fatalf("status %d, want 499", w.Code)
	}
	close(routes.release)
	if !strings.Contains(s.logs.String(), `"status":499`) || strings.Contains(s.logs.String(), `"level":"ERROR"`) {
		t.Errorf("access log: %s; want status 499 and no error line", s.logs.String())
	}
}

// stuckRoute is a route whose handler ignores its context until release is
// closed, guarded with the order intake's kind of error writer.
type stuckRoute struct {
	adm     *httpapi.Admission
	release chan struct{}
}

func (s stuckRoute) Register(r *mux.Router) {
	write := func(w http.ResponseWriter, _ *http.Request, err error) {
		w.Header().Set("Retry-After", "5")
		httpapi.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"success": false, "error": "unavailable", "why": err.Error()})
	}
	r.Handle("/v0/stuck", s.adm.Guard(write, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		<-s.release
		httpapi.WriteJSON(w, http.StatusOK, map[string]bool{"late": true})
	}))).Methods(http.MethodPost)
}

// The answer for a stuck handler is written by the route's own error
// writer: the intake's body, not a problem and not http.TimeoutHandler's
// HTML.
func TestAdmissionAnswersInTheRoutesShape(t *testing.T) {
	route := stuckRoute{adm: httpapi.NewAdmission(200*time.Millisecond, 1, slog.New(slog.DiscardHandler)), release: make(chan struct{})}
	defer close(route.release)
	s := newTestServer(t, route)
	w := s.do(httptest.NewRequest(http.MethodPost, "/v0/stuck", nil))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Content-Type") != "application/json" || w.Header().Get("Retry-After") == "" {
		t.Fatalf("%d %v, want 503 application/json with Retry-After", w.Code, w.Header())
	}
	if body := w.Body.String(); !strings.HasPrefix(body, `{"error":"unavailable","success":false,"why":"no answer within the request deadline`) {
		t.Errorf("body %s, want the route's own", body)
	}
	if w.Header().Get("X-Fulfillment-Handled") != "" {
		t.Errorf("the internal mark leaked: %v", w.Header())
	}
}
