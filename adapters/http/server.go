package httpapi

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
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

// NewHandler builds the whole HTTP handler: the mux router with every
// route group, wrapped in the middleware that must see every request,
// unknown routes included.
func NewHandler(p RouterParams) http.Handler {
	// SkipClean: an odd path such as /v0/invoices/. is answered by the
	// route (404 for an ID that cannot be one), never by a 301 redirect.
	router := mux.NewRouter().SkipClean(true)
	router.NotFoundHandler = http.HandlerFunc(notFound)
	router.MethodNotAllowedHandler = methodNotAllowed(router)
	router.Use(nameSpan)
	groups := make([]*mux.Router, len(p.Routes))
	for i, g := range p.Routes {
		groups[i] = mux.NewRouter().SkipClean(true)
		g.Register(groups[i])
		gated(router, groups[i])
	}
	initRouteMetrics(groups, p.Metrics)
	var h http.Handler = router
	h = withRecovery(p.Log, h)
	h = withAccessLog(p.Log, p.Metrics, h)
	return withServerSpan(p.TracerProvider, p.Propagator, h)
}

// gated adds a route that leads to a group's own router only for a path
// that starts with the literal part of one of the group's path templates.
// gorilla/mux tries routes one after another, each by its regular
// expression: with every route on one router, in whatever order fx supplies
// the groups, a read tried some twenty routes before its own (7.7 % of a
// detail's instructions). Now it makes a few string comparisons per group
// and tries the expressions of its own group only (4.7 %). A route without
// a path template opens the gate for every path.
//
// The group's router is the route's one matcher, not a mux subrouter, which
// would copy the gate into each of its routes, where the gate matching
// clears a "method mismatch" found before: a 405 would become a 404.
func gated(router, group *mux.Router) {
	var literals []string
	everyPath := false
	_ = group.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tmpl, err := route.GetPathTemplate()
		everyPath = everyPath || err != nil
		literal, _, _ := strings.Cut(tmpl, "{")
		literals = append(literals, literal)
		return nil
	})
	if everyPath {
		literals = []string{""}
	}
	// Sorted, the literals a prefix covers follow it.
	slices.Sort(literals)
	var prefixes []string
	for _, l := range literals {
		if len(prefixes) == 0 || !strings.HasPrefix(l, prefixes[len(prefixes)-1]) {
			prefixes = append(prefixes, l)
		}
	}
	router.MatcherFunc(func(r *http.Request, match *mux.RouteMatch) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(r.URL.Path, p) {
				return group.Match(r, match)
			}
		}
		return false
	})
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
