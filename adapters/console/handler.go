package console

import (
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// HandlerParams are the parts of the console's handler.
type HandlerParams struct {
	Routes []Routes
	Guard  Guard
	// Tracer starts a span per request, named by its route (nil: none).
	Tracer trace.Tracer
	// Log gets an access line per request and the panics (nil: none).
	Log *slog.Logger
}

// NewHandler builds the console: every group of pages and actions behind
// the guard, /healthz and the static files open, every answer with the
// security headers of docs/console.md, and every state-changing request
// that is not same-origin refused with 403 before anything runs.
func NewHandler(p HandlerParams) http.Handler {
	router := mux.NewRouter()
	router.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	}).Methods(http.MethodGet, http.MethodHead)
	static, _ := fs.Sub(files, "static") // the embedded folder exists: the build proves it
	router.PathPrefix("/static/").Handler(http.StripPrefix("/static/", http.FileServerFS(static))).Methods(http.MethodGet, http.MethodHead)
	for _, g := range p.Routes {
		g.Register(router, p.Guard)
	}
	if p.Tracer == nil {
		p.Tracer = noop.NewTracerProvider().Tracer("")
	}
	if p.Log == nil {
		p.Log = slog.New(slog.DiscardHandler)
	}
	router.Use(observe(p.Tracer, p.Log))
	return recovering(p.Log, withSecurityHeaders(sameOrigin(router)))
}

// observe wraps each routed request in a span named by its route's
// template ("console GET /billing"), and logs one line when it ends: the
// method, the route (never the query, which may hold a sign-in link), the
// status and the duration.
func observe(tracer trace.Tracer, log *slog.Logger) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			route := r.URL.Path
			if cur := mux.CurrentRoute(r); cur != nil {
				if t, err := cur.GetPathTemplate(); err == nil {
					route = t
				}
			}
			start := time.Now()
			ctx, span := tracer.Start(r.Context(), "console "+r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", route)))
			defer span.End()
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(sw, r.WithContext(ctx))
			span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
			if sw.status >= http.StatusInternalServerError {
				span.SetStatus(codes.Error, http.StatusText(sw.status))
			}
			log.InfoContext(ctx, "console request", slog.String("method", r.Method), slog.String("route", route),
				slog.Int("status", sw.status), slog.Duration("duration", time.Since(start)))
		})
	}
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recovering answers a request whose handler panicked with 500 and a
// plain line (the panic is logged, never shown), and keeps the server
// serving. http.ErrAbortHandler, a deliberate abort, is passed on.
func recovering(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
			log.ErrorContext(r.Context(), "console: a handler panicked", slog.String("path", r.URL.Path), slog.Any("panic", v))
			http.Error(w, "internal error", http.StatusInternalServerError)
		}()
		next.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy allows the console's own files only: no inline
// script or style, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func withSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// sameOrigin refuses a state-changing request that another site sent
// (Sec-Fetch-Site cross-site or same-site, or an Origin that is not the
// console's own) with 403: the same-origin check is the defence against
// cross-site request forgery, and forms carry no token.
func sameOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "refused: the form was not sent from this console", http.StatusForbidden)
	}))
	return cop.Handler(next)
}
