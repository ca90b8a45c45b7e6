// Package shipping is the HTTP adapter of the shipping context: an
// organization's shipments (/v0/shipments) and its inventory
// (/v0/inventory), their handlers and bodies, over the kit of package
// httpapi. It imports no other context's routes.
package shipping

import (
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
)

// Routes are the context's groups of routes, for the server to mount.
func Routes(app *shippingapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper, m *telemetry.Metrics) []httpapi.Routes {
	return []httpapi.Routes{NewShipments(app, auth, errs, m), NewInventory(app, auth, errs)}
}
