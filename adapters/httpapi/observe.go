package httpapi

import (
	"strings"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The business metrics are counted here, where the answer is known and the
// transaction behind it has committed; the application layer knows nothing
// of Prometheus.

// CountTransition counts the shipment change a command committed: s is the
// shipment as the command left it. Nothing is counted when err is set.
func CountTransition(m *telemetry.Metrics, s *shipping.Shipment, err error) {
	if err == nil && s != nil {
		m.ObserveShipmentTransition(string(s.Kind()), string(s.Status()))
	}
}

// initRouteMetrics creates the per-route series of every /v0 route at 0, so
// that dashboards and alerts over them have data before the first event.
func initRouteMetrics(router *mux.Router, m *telemetry.Metrics) {
	var routes []string
	seen := map[string]bool{}
	_ = router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if tmpl, err := route.GetPathTemplate(); err == nil && strings.HasPrefix(tmpl, "/v0/") && !seen[tmpl] {
			seen[tmpl] = true
			routes = append(routes, tmpl)
		}
		return nil
	})
	m.InitRoutes(routes)
}
