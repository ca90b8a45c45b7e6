// Package access is the HTTP adapter of what an organization's credentials
// reach: the warehouses it may ship from (/v0/warehouses), over the kit of
// package httpapi. It imports no other context's routes.
package access

import (
	"github.com/acme3pl/fulfillment/adapters/httpapi"
	accessapp "github.com/acme3pl/fulfillment/application/access"
)

// Routes are the context's groups of routes, for the server to mount.
func Routes(app *accessapp.UseCases, auth httpapi.Authenticator, errs httpapi.ErrorMapper) []httpapi.Routes {
	return []httpapi.Routes{NewWarehouses(app, auth, errs)}
}
