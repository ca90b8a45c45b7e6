package httpapi

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/application"
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

// withTraceID sets X-Trace-Id from the server span before anything is
// written, so that every response carries it, errors and panics included.
func withTraceID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sc := trace.SpanContextFromContext(r.Context()); sc.HasTraceID() {
			w.Header().Set("X-Trace-Id", sc.TraceID().String())
		}
		next.ServeHTTP(w, r)
	})
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

// withAccessLog records the request in the metrics and writes one access
// log line. The route is the template the request matched, or the fixed
// word "unmatched": the metric label set stays bounded whatever paths
// clients send.
func withAccessLog(log *slog.Logger, m *telemetry.Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sr := &statusRecorder{ResponseWriter: w}
		record := &requestRecord{route: "unmatched"}
		r = r.WithContext(contextWithRecord(r.Context(), record))
		next.ServeHTTP(sr, r)
		if sr.status == 0 {
			sr.status = http.StatusOK
		}
		elapsed := time.Since(start)
		route, errorKind := record.get()
		m.ObserveRequest(r.Context(), route, methodLabel(r.Method), strconv.Itoa(sr.status), elapsed.Seconds())
		switch errorKind {
		case application.KindShed:
			m.RequestsShed.WithLabelValues(route).Inc()
		case application.KindTimeout:
			m.RequestsTimedOut.WithLabelValues(route).Inc()
		}
		level := slog.LevelInfo
		if sr.status >= 500 {
			level = slog.LevelError
		}
		if isProbe(r.URL.Path) && sr.status < 400 {
			level = slog.LevelDebug
		}
		attrs := []slog.Attr{slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", sr.status), slog.Duration("duration", elapsed)}
		if errorKind != "" {
			attrs = append(attrs, slog.String("error_kind", errorKind))
		}
		log.LogAttrs(r.Context(), level, "request", attrs...)
	})
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
