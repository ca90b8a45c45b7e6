package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
)

// Routes is implemented by every handler group; the router is built from
// all of them.
type Routes interface {
	Register(r *mux.Router)
}

// Group is what every group of routes holds: its context's use cases (the
// one it calls), the authentication of its routes, the answer of their
// errors, and the metrics it counts (nil for a group that counts nothing).
// A context's route package embeds it in each of its groups.
type Group[A any] struct {
	App     *A
	Auth    Authenticator
	Errors  ErrorMapper
	Metrics *telemetry.Metrics
}

// NewGroup is the Group of a context's routes.
func NewGroup[A any](app *A, auth Authenticator, errs ErrorMapper, m *telemetry.Metrics) Group[A] {
	return Group[A]{App: app, Auth: auth, Errors: errs, Metrics: m}
}

// DefaultBodyLimit bounds request bodies of routes that set no limit of
// their own.
const DefaultBodyLimit = 1 << 20

// RouterParams are the parts of the HTTP handler.
type RouterParams struct {
	Routes         []Routes
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator
	Metrics        *telemetry.Metrics
	Log            *slog.Logger
}

// NewHandler builds the whole HTTP handler: one gorilla/mux router with
// every route group, wrapped in the middleware that must see every request,
// unknown routes included. The router answers a path it knows with a
// method it does not 405 (with Allow), and anything else 404, both as
// problems.
func NewHandler(p RouterParams) http.Handler {
	// SkipClean: an odd path such as /v0/invoices/. is answered by the
	// route (404 for an ID that cannot be one), never by a 301 redirect.
	router := mux.NewRouter().SkipClean(true)
	router.NotFoundHandler = http.HandlerFunc(notFound)
	router.MethodNotAllowedHandler = methodNotAllowed(router)
	router.Use(nameSpan)
	for _, g := range p.Routes {
		g.Register(router)
	}
	initRouteMetrics(router, p.Metrics)
	var h http.Handler = router
	h = withRecovery(p.Log, h)
	h = withAccessLog(p.Log, p.Metrics, h)
	return withServerSpan(p.TracerProvider, p.Propagator, h)
}

// NewServer returns the HTTP server with the timeouts a public API needs:
// slow clients cannot hold connections open.
func NewServer(addr string, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
