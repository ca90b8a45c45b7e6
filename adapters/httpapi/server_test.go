package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// panicText is what the panicking route panics with; it must stay in the
// log and out of the response.
const panicText = "boom: " + leakyText

// testRoutes is a small route group: a GET-only route with a variable and a
// route whose handler panics.
type testRoutes struct{}

func (testRoutes) Register(r *mux.Router) {
	r.HandleFunc("/route/{id}", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"id": mux.Vars(r)["id"]})
	}).Methods(http.MethodGet)
	r.HandleFunc("/panic", func(http.ResponseWriter, *http.Request) {
		panic(panicText)
	}).Methods(http.MethodGet)
}

// testServer is NewHandler over testRoutes with a span recorder, a metrics
// registry and a log buffer of its own.
type testServer struct {
	handler http.Handler
	spans   *tracetest.SpanRecorder
	metrics *telemetry.Metrics
	logs    *bytes.Buffer
}

func newTestServer(t *testing.T, routes ...httpapi.Routes) *testServer {
	t.Helper()
	return newSampledTestServer(t, sdktrace.AlwaysSample(), routes...)
}

// newSampledTestServer is newTestServer with the sampler given.
func newSampledTestServer(t *testing.T, sampler sdktrace.Sampler, routes ...httpapi.Routes) *testServer {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans), sdktrace.WithSampler(sampler))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := &testServer{spans: spans, metrics: telemetry.NewMetrics(), logs: &bytes.Buffer{}}
	s.handler = httpapi.NewHandler(httpapi.RouterParams{
		Routes:         append([]httpapi.Routes{testRoutes{}}, routes...),
		TracerProvider: tp,
		Propagator:     propagation.TraceContext{},
		Metrics:        s.metrics,
		Log:            slog.New(slog.NewJSONHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return s
}

func (s *testServer) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.handler.ServeHTTP(w, r)
	return w
}

// serverSpan is the one ended server span.
func (s *testServer) serverSpan(t *testing.T) sdktrace.ReadOnlySpan {
	t.Helper()
	ended := s.spans.Ended()
	if len(ended) != 1 {
		t.Fatalf("recorded %d spans, want 1 server span", len(ended))
	}
	return ended[0]
}

var traceIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func checkTraceIDHeader(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	id := w.Header().Get("X-Trace-Id")
	if !traceIDPattern.MatchString(id) || id == strings.Repeat("0", 32) {
		t.Errorf("X-Trace-Id = %q, want 32 hex digits, not all zero", id)
	}
	return id
}

// problemOf decodes a problem response and checks its media type.
func problemOf(t *testing.T, w *httptest.ResponseRecorder) httpapi.Problem {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", ct)
	}
	var p httpapi.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("body is not a problem document: %v: %s", err, w.Body.String())
	}
	return p
}

func TestHandlerUnknownRoute(t *testing.T) {
	s := newTestServer(t)
	w := s.do(httptest.NewRequest(http.MethodGet, "/no/such/route", nil))

	if w.Code != http.StatusNotFound {
		t.Fatalf("status = %d, want 404", w.Code)
	}
	if p := problemOf(t, w); p.Code != "not_found" || p.Status != 404 {
		t.Errorf("problem = %+v, want code not_found, status 404", p)
	}
}

func TestHandlerMethodNotAllowed(t *testing.T) {
	s := newTestServer(t)
	w := s.do(httptest.NewRequest(http.MethodPost, "/route/42", strings.NewReader("{}")))

	if w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("status = %d, want 405", w.Code)
	}
	if got := w.Header().Get("Allow"); got != "GET" {
		t.Errorf("Allow = %q, want GET", got)
	}
	if p := problemOf(t, w); p.Code != "method_not_allowed" {
		t.Errorf("problem code = %q, want method_not_allowed", p.Code)
	}
}

// pathRoutes is a route group that answers 200 with the route's template
// and its variables, for the routes "METHOD template" it is given.
type pathRoutes []string

func (p pathRoutes) Register(r *mux.Router) {
	for _, route := range p {
		method, tmpl, _ := strings.Cut(route, " ")
		r.HandleFunc(tmpl, func(w http.ResponseWriter, r *http.Request) {
			httpapi.WriteJSON(w, http.StatusOK, map[string]any{"route": tmpl, "vars": mux.Vars(r)})
		}).Methods(method)
	}
}

// NewHandler registers every route group on one router. Whatever the
// groups' order and however their paths overlap, it must answer as a bare
// gorilla/mux router holding every route would: the same route with the
// same variables, or the same 404 or 405 (as problems).
func TestHandlerGroupsAnswerAsOneRouter(t *testing.T) {
	groups := []pathRoutes{
		{"GET /item/{id}", "POST /item/{id}/sub"},
		{"PUT /item/x", "GET /other"},
		{"POST /other", "DELETE /other/{a}/{b}"},
		{"GET /"},
	}
	paths := []string{"/item/1", "/item/x", "/item/1/sub", "/item/x/sub", "/item/", "/item", "/route/1", "/other",
		"/other/1/2", "/other/1", "/otherwise", "/", "/nope", "/panic"}
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete}
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 3, 0, 2}} {
		flat := mux.NewRouter().SkipClean(true)
		var routes []httpapi.Routes
		for _, i := range order {
			groups[i].Register(flat)
			routes = append(routes, groups[i])
		}
		testRoutes{}.Register(flat)
		s := newTestServer(t, routes...)
		for _, m := range methods {
			for _, path := range paths {
				var match mux.RouteMatch
				want := http.StatusNotFound
				if flat.Match(httptest.NewRequest(m, path, nil), &match) {
					want = http.StatusOK
				} else if errors.Is(match.MatchErr, mux.ErrMethodMismatch) {
					want = http.StatusMethodNotAllowed
				}
				if path == "/panic" && want == http.StatusOK {
					want = http.StatusInternalServerError
				}
				w := s.do(httptest.NewRequest(m, path, nil))
				if w.Code != want {
					t.Errorf("groups in order %v: %s %s: status %d, want %d as from one router", order, m, path, w.Code, want)
					continue
				}
				if want == http.StatusOK {
					one := httptest.NewRecorder()
					flat.ServeHTTP(one, httptest.NewRequest(m, path, nil))
					if w.Body.String() != one.Body.String() {
						t.Errorf("groups in order %v: %s %s: %s, want %s as from one router", order, m, path, w.Body, one.Body)
					}
				}
			}
		}
	}
}

func TestHandlerRecoversFromPanic(t *testing.T) {
	s := newTestServer(t)
	w := s.do(httptest.NewRequest(http.MethodGet, "/panic", nil))

	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", w.Code)
	}
	p := problemOf(t, w)
	if p.Code != "internal" {
		t.Errorf("problem code = %q, want internal", p.Code)
	}
	if body := w.Body.String(); strings.Contains(body, "boom") || strings.Contains(body, "SELECT") || strings.Contains(body, "goroutine") {
		t.Errorf("body leaks the panic: %s", body)
	}
	id := checkTraceIDHeader(t, w)
	if p.TraceID != id {
		t.Errorf("problem traceId = %q, want the X-Trace-Id %q", p.TraceID, id)
	}
	if !strings.Contains(s.logs.String(), "boom") {
		t.Errorf("the panic is not logged: %s", s.logs.String())
	}
}

func TestHandlerTraceIDOnEveryResponse(t *testing.T) {
	tests := []struct {
		method, path string
		wantStatus   int
	}{
		{http.MethodGet, "/route/42", http.StatusOK},
		{http.MethodGet, "/nowhere", http.StatusNotFound},
		{http.MethodDelete, "/route/42", http.StatusMethodNotAllowed},
		{http.MethodGet, "/panic", http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			s := newTestServer(t)
			w := s.do(httptest.NewRequest(tt.method, tt.path, nil))
			if w.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d", w.Code, tt.wantStatus)
			}
			id := checkTraceIDHeader(t, w)
			if want := s.serverSpan(t).SpanContext().TraceID().String(); id != want {
				t.Errorf("X-Trace-Id = %q, want the server span's %q", id, want)
			}
		})
	}
}

func TestHandlerContinuesIncomingTrace(t *testing.T) {
	const (
		callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		callerSpan  = "00f067aa0ba902b7"
	)
	s := newTestServer(t)
	r := httptest.NewRequest(http.MethodGet, "/route/42", nil)
	r.Header.Set("traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	w := s.do(r)

	if got := w.Header().Get("X-Trace-Id"); got != callerTrace {
		t.Errorf("X-Trace-Id = %q, want the caller's %q", got, callerTrace)
	}
	span := s.serverSpan(t)
	parent := span.Parent()
	if !parent.IsRemote() || parent.TraceID().String() != callerTrace || parent.SpanID().String() != callerSpan {
		t.Errorf("server span parent = remote %v, trace %s, span %s; want remote, %s, %s",
			parent.IsRemote(), parent.TraceID(), parent.SpanID(), callerTrace, callerSpan)
	}
	if got := span.SpanContext().TraceID().String(); got != callerTrace {
		t.Errorf("server span trace = %s, want %s", got, callerTrace)
	}
}

func TestHandlerStartsATraceWithoutTraceparent(t *testing.T) {
	s := newTestServer(t)
	s.do(httptest.NewRequest(http.MethodGet, "/route/42", nil))
	if parent := s.serverSpan(t).Parent(); parent.IsValid() {
		t.Errorf("server span has parent %v, want a root span", parent)
	}
}

func TestHandlerServerSpanAttributes(t *testing.T) {
	s := newTestServer(t)
	r := httptest.NewRequest(http.MethodGet, "/route/42?q=customer+words", nil)
	r.RemoteAddr = "10.1.2.3:41000"
	r.Header.Set("User-Agent", "storefront/1.0")
	r.Header.Set("X-Forwarded-For", "203.0.113.7, 10.0.0.1")
	s.do(r)

	span := s.serverSpan(t)
	want := map[string]string{
		"http.request.method":       "GET",
		"http.route":                "/route/{id}",
		"http.response.status_code": "200",
		"url.scheme":                "http",
		"url.path":                  "/route/42",
		"server.address":            "example.com", // httptest's Host
		"network.peer.address":      "10.1.2.3",
		"network.peer.port":         "41000",
		"client.address":            "203.0.113.7",
		"user_agent.original":       "storefront/1.0",
		"network.protocol.version":  "1.1",
	}
	got := map[string]string{}
	for _, kv := range span.Attributes() {
		got[string(kv.Key)] = kv.Value.String()
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("attribute %s = %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected attribute %s = %q (the query string and anything else stay out)", k, got[k])
		}
	}
	if span.SpanKind() != trace.SpanKindServer || span.Status().Code != codes.Unset {
		t.Errorf("span kind %v, status %v; want server, unset", span.SpanKind(), span.Status())
	}
}

func TestHandlerServerSpanFailsOnServerErrorsOnly(t *testing.T) {
	tests := []struct {
		method, path string
		wantStatus   codes.Code
		wantAttrs    map[string]string
	}{
		{http.MethodGet, "/panic", codes.Error, map[string]string{"error.type": "500", "http.response.status_code": "500"}},
		{http.MethodGet, "/nowhere", codes.Unset, map[string]string{"error.type": "", "http.response.status_code": "404"}},
		{"BREW", "/route/42", codes.Unset, map[string]string{
			"http.request.method": "_OTHER", "http.request.method_original": "BREW", "http.response.status_code": "405"}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			s := newTestServer(t)
			s.do(httptest.NewRequest(tt.method, tt.path, nil))
			span := s.serverSpan(t)
			if span.Status().Code != tt.wantStatus {
				t.Errorf("span status = %v, want %v", span.Status().Code, tt.wantStatus)
			}
			got := map[string]string{}
			for _, kv := range span.Attributes() {
				got[string(kv.Key)] = kv.Value.String()
			}
			for k, v := range tt.wantAttrs {
				if got[k] != v {
					t.Errorf("attribute %s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

// A request the sampler leaves out records nothing, and still answers with
// its trace ID: the caller's when it sent one.
func TestHandlerUnsampledRequestKeepsItsTraceID(t *testing.T) {
	const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	s := newSampledTestServer(t, sdktrace.ParentBased(sdktrace.NeverSample()))

	w := s.do(httptest.NewRequest(http.MethodGet, "/route/42", nil))
	checkTraceIDHeader(t, w)
	r := httptest.NewRequest(http.MethodGet, "/route/42", nil)
	r.Header.Set("traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-00")
	if got := s.do(r).Header().Get("X-Trace-Id"); got != callerTrace {
		t.Errorf("X-Trace-Id = %q, want the caller's %q", got, callerTrace)
	}
	if n := len(s.spans.Ended()); n != 0 {
		t.Errorf("recorded %d spans, want none", n)
	}
}

func TestHandlerNamesSpanByRouteTemplate(t *testing.T) {
	tests := []struct {
		method, path string
		wantName     string
	}{
		{http.MethodGet, "/route/42", "GET /route/{id}"},
		{http.MethodGet, "/route/a-very-unique-value", "GET /route/{id}"},
		{http.MethodGet, "/unknown/123", "GET"}, // unmatched: never the raw path
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			s := newTestServer(t)
			s.do(httptest.NewRequest(tt.method, tt.path, nil))
			if got := s.serverSpan(t).Name(); got != tt.wantName {
				t.Errorf("span name = %q, want %q", got, tt.wantName)
			}
		})
	}
}

func TestHandlerMetricsUseRouteTemplate(t *testing.T) {
	s := newTestServer(t)
	// A panic is answered 500 and counted as one.
	for _, path := range []string{"/route/42", "/route/43", "/unknown/99", "/panic"} {
		s.do(httptest.NewRequest(http.MethodGet, path, nil))
	}
	// Methods a client makes up share one label value, whatever they are.
	for _, method := range []string{"FOO", "BAR1", "PROPFIND"} {
		s.do(httptest.NewRequest(method, "/route/42", nil))
	}

	families, err := s.metrics.Registry.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	counts := map[string]uint64{} // "route method code" → observations
	for _, f := range families {
		if f.GetName() != "http_server_request_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			counts[labels["route"]+" "+labels["method"]+" "+labels["code"]] += m.GetHistogram().GetSampleCount()
		}
	}
	want := map[string]uint64{"/route/{id} GET 200": 2, "unmatched GET 404": 1, "unmatched _OTHER 405": 3, "/panic GET 500": 1}
	if len(counts) != len(want) {
		t.Errorf("histogram series = %v, want %v", counts, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("histogram series %q has %d observations, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
}
