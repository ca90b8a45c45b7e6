// Package intake is the HTTP adapter of the intake context: the storefront's
// order webhook (an API key, errors in the intake's own shape), an order's
// receipt and the failed orders' list and replay (an access token,
// problem+json), the storefront order's decoder and the intake's metrics,
// over the kit of package httpapi. It imports no other context's routes.
package intake

import (
	"log/slog"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/adapters/telemetry"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// Routes are the context's groups of routes, for the server to mount.
func Routes(app *intakeapp.UseCases, signatures accessports.StorefrontSignatureVerifier,
	auth httpapi.Authenticator, errs httpapi.ErrorMapper, log *slog.Logger, m *telemetry.Metrics,
) []httpapi.Routes {
	return []httpapi.Routes{NewStorefront(app, signatures, auth, errs, log, m), NewStorefrontOrders(app, auth, errs)}
}
