package httpapi

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/acme3pl/fulfillment/adapters/telemetry"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The business metrics are counted here, where the answer is known and the
// transaction behind it has committed; the application layer knows nothing
// of Prometheus.

// countIntakeError counts an error answer of the order intake: refused
// (4xx) or failed (5xx), with its error code. A delivery whose client went
// away was not answered and is not counted: the storefront delivers it
// again.
func countIntakeError(m *telemetry.Metrics, e intakeError) {
	switch {
	case e.status == StatusClientClosedRequest:
	case e.status >= http.StatusInternalServerError:
		m.ObserveIntake(telemetry.IntakeFailed, e.Error)
	default:
		m.ObserveIntake(telemetry.IntakeRefused, e.Error)
	}
}

// countIntakeResult counts a success answer of the order intake, and the
// Pick & Pack shipment it submitted when it made one.
func countIntakeResult(m *telemetry.Metrics, res intakeapp.StorefrontOrderResult) {
	switch {
	case res.Duplicate:
		m.ObserveIntake(telemetry.IntakeDuplicate, "")
	case res.ShipmentID == "":
		m.ObserveIntake(telemetry.IntakeSkipped, "")
	default:
		m.ObserveIntake(telemetry.IntakeCreated, "")
		m.ObserveShipmentTransition(string(shipping.PickPack), string(shipping.ShipmentPending))
	}
}

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
