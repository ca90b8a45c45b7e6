// Package warehouse is the HTTP adapter of the warehouse context: a
// warehouse's own routes (/v0/warehouse/..., a warehouse's token): its
// shipments to ship, its receipts and its services, their handlers and
// bodies, over the kit of package httpapi. It imports no other context's
// routes.
package warehouse

import (
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
)

// Routes are the context's groups of routes, for the server to mount.
func Routes(app *warehouseapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper, m *telemetry.Metrics) []httpapi.Routes {
	return []httpapi.Routes{NewShipments(app, auth, errs, m), NewReceiving(app, auth, errs, m)}
}
