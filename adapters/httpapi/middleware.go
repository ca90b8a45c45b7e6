package httpapi

import (
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain"
)

// statusRecorder remembers the status code written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// withServerSpan starts the request's server span, a child of the caller's
// traceparent when it sends one, and sets X-Trace-Id from it before anything
// is written, so that every response carries it, errors and panics included.
// The span is named by the method until the router names it by its route
// (nameSpan): never by the raw path, whose values are unbounded.
//
// The span's attributes follow OpenTelemetry's semantic conventions for HTTP
// servers, and are computed only for a span that is recorded: a request the
// sampler leaves out costs a trace ID, not the attributes nobody will read.
// The query string is left out: search terms are customers' words. The
// answer's status is set by withAccessLog (recordAnswer), which has it.
func withServerSpan(tp trace.TracerProvider, prop propagation.TextMapPropagator, next http.Handler) http.Handler {
	tracer := tp.Tracer(tracerName)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, methodLabel(r.Method), trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		if sc := span.SpanContext(); sc.HasTraceID() {
			w.Header().Set("X-Trace-Id", sc.TraceID().String())
		}
		if span.IsRecording() {
			span.SetAttributes(requestAttributes(r)...)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// recordAnswer sets the answer's status on a recorded server span; the
// access log, which knows the status, calls it.
func recordAnswer(span trace.Span, status int) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= http.StatusInternalServerError {
		// A server span fails on a 5xx only: a 4xx is the client's mistake.
		span.SetStatus(codes.Error, "")
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
	}
}

// tracerName names the tracer of the server spans (the instrumentation scope).
const tracerName = "github.com/acme3pl/fulfillment/adapters/httpapi"

// requestAttributes are the semantic conventions' attributes of an HTTP
// server span known before the handler runs.
func requestAttributes(r *http.Request) []attribute.KeyValue {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	method := methodLabel(r.Method)
	attrs := append(make([]attribute.KeyValue, 0, 10),
		semconv.HTTPRequestMethodKey.String(method), semconv.URLScheme(scheme), semconv.URLPath(r.URL.Path))
	if method != r.Method {
		attrs = append(attrs, semconv.HTTPRequestMethodOriginal(r.Method))
	}
	if host, port := splitHostPort(r.Host); host != "" {
		attrs = append(attrs, semconv.ServerAddress(host))
		if port > 0 {
			attrs = append(attrs, semconv.ServerPort(port))
		}
	}
	peer, peerPort := splitHostPort(r.RemoteAddr)
	if peer != "" {
		attrs = append(attrs, semconv.NetworkPeerAddress(peer), semconv.NetworkPeerPort(peerPort))
	}
	// The client is the first address of X-Forwarded-For when a proxy (the
	// cluster's ingress) sent one, else the peer.
	client, _, _ := strings.Cut(r.Header.Get("X-Forwarded-For"), ",")
	if client = strings.TrimSpace(client); client == "" {
		client = peer
	}
	if client != "" {
		attrs = append(attrs, semconv.ClientAddress(client))
	}
	if ua := r.UserAgent(); ua != "" {
		attrs = append(attrs, semconv.UserAgentOriginal(ua))
	}
	if r.ProtoMajor > 0 {
		version := strconv.Itoa(r.ProtoMajor)
		if r.ProtoMajor == 1 {
			version += "." + strconv.Itoa(r.ProtoMinor)
		}
		attrs = append(attrs, semconv.NetworkProtocolVersion(version))
	}
	return attrs
}

// splitHostPort splits "host:port", "[v6]:port" or a bare host; port is 0
// when absent or not a number.
func splitHostPort(hostport string) (host string, port int) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return strings.Trim(hostport, "[]"), 0
	}
	port, _ = strconv.Atoi(p)
	return host, port
}

// withRecovery turns a panic into a 500 problem without internals; the
// panic value is logged, not sent.
func withRecovery(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler { //nolint:errorlint // sentinel compared as net/http does
					panic(v)
				}
				log.ErrorContext(r.Context(), "panic serving request", slog.Any("panic", v),
					slog.String("method", r.Method), slog.String("path", r.URL.Path))
				WriteProblem(w, r, NewProblem(http.StatusInternalServerError, "internal",
					"an internal error occurred; quote the trace ID to support"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// withAccessLog records the answer in the metrics and on the server span,
// and writes one access log line. The route is the template the request
// matched, or the fixed word "unmatched": the metric label set stays bounded
// whatever paths clients send. It runs outside withRecovery, so that an
// answer to a panic is counted and logged like any other 500.
func withAccessLog(log *slog.Logger, m *telemetry.Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sr := &statusRecorder{ResponseWriter: w}
		record := &requestRecord{route: "unmatched"}
		r = r.WithContext(contextWithRecord(r.Context(), record))
		defer func() {
			// A stream cut short (http.ErrAbortHandler, a download) is
			// logged and counted too, then goes on to net/http.
			if v := recover(); v != nil {
				logAnswer(log, m, r, sr, record, start)
				panic(v)
			}
		}()
		next.ServeHTTP(sr, r)
		logAnswer(log, m, r, sr, record, start)
	})
}

// logAnswer records the answer in the metrics and on the server span, and
// writes the access log line. An answer cut short because its client went
// away (a download) is status 499, whatever status went out before.
func logAnswer(log *slog.Logger, m *telemetry.Metrics, r *http.Request, sr *statusRecorder, record *requestRecord, start time.Time) {
	if sr.status == 0 {
		sr.status = http.StatusOK
	}
	elapsed := time.Since(start)
	route, errorKind := record.get()
	if errorKind == domain.KindClientGone {
		sr.status = StatusClientClosedRequest
	}
	recordAnswer(trace.SpanFromContext(r.Context()), sr.status)
	m.ObserveRequest(r.Context(), route, methodLabel(r.Method), strconv.Itoa(sr.status), elapsed.Seconds())
	switch errorKind {
	case domain.KindShed:
		m.RequestsShed.WithLabelValues(route).Inc()
	case domain.KindTimeout:
		m.RequestsTimedOut.WithLabelValues(route).Inc()
	}
	level := slog.LevelInfo
	if sr.status >= 500 {
		level = slog.LevelError
	}
	if isProbe(r.URL.Path) && sr.status < 400 {
		level = slog.LevelDebug
	}
	// The record goes to the handler directly: Logger.LogAttrs would
	// also walk the stack for the caller's address, which no line of
	// this service prints.
	h := log.Handler()
	if !h.Enabled(r.Context(), level) {
		return
	}
	line := slog.NewRecord(start.Add(elapsed), level, "request", 0)
	line.AddAttrs(slog.String("method", r.Method), slog.String("route", route),
		slog.Int("status", sr.status), slog.Duration("duration", elapsed))
	if errorKind != "" {
		line.AddAttrs(slog.String("error_kind", string(errorKind)))
	}
	_ = h.Handle(r.Context(), line)
}

// methodLabel is the request's method as a metric label or span name: one
// of HTTP's nine standard methods, or "_OTHER" for anything a client makes
// up, so that the label set stays bounded.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "_OTHER"
}

func isProbe(path string) bool {
	return path == "/healthz" || path == "/readyz" || path == "/metrics"
}

// nameSpan runs inside the router, after matching: it names the server span
// by the route template and records the template for metrics and logs.
func nameSpan(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if route := mux.CurrentRoute(r); route != nil {
			if tmpl, err := route.GetPathTemplate(); err == nil {
				span := trace.SpanFromContext(r.Context())
				span.SetName(methodLabel(r.Method) + " " + tmpl)
				span.SetAttributes(attribute.String("http.route", tmpl))
				recordFrom(r.Context()).setRoute(tmpl)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Guarded is the route next behind guard, its body bounded by
// DefaultBodyLimit.
func Guarded(guard func(http.HandlerFunc) http.Handler, next http.HandlerFunc) http.Handler {
	return guard(withBodyLimit(DefaultBodyLimit, next).ServeHTTP)
}

// withBodyLimit refuses bodies over limit bytes (http.MaxBytesReader makes
// the decoder fail; handlers answer 413).
func withBodyLimit(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			WriteProblem(w, r, NewProblem(http.StatusRequestEntityTooLarge, "payload_too_large",
				"the body is larger than "+strconv.FormatInt(limit, 10)+" bytes"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// methodNotAllowed answers 405 with the Allow header listing the methods the
// path does accept.
func methodNotAllowed(router *mux.Router) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			probe := r.Clone(r.Context())
			probe.Method = m
			var match mux.RouteMatch
			if router.Match(probe, &match) && match.MatchErr == nil {
				allowed = append(allowed, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		WriteProblem(w, r, NewProblem(http.StatusMethodNotAllowed, "method_not_allowed",
			"this path accepts "+strings.Join(allowed, ", ")))
	})
}

func notFound(w http.ResponseWriter, r *http.Request) {
	WriteProblem(w, r, NewProblem(http.StatusNotFound, "not_found", "no such route"))
}
