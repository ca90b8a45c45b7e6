package bootstrap

import (
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/console"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/ports"
)

// AsConsoleRoutes annotates a constructor of a group of the console's pages
// and actions for its handler.
func AsConsoleRoutes(ctor any) any {
	return fx.Annotate(ctor, fx.As(new(console.Routes)), fx.ResultTags(`group:"console-routes"`))
}

// consolePages are the console's pages and actions (docs/console.md), each
// group over its context's use cases. They take the console's views
// (*console.Views), which the console's module provides.
var consolePages = fx.Options(
	fx.Provide(
		func(v *console.Views, clock ports.Clock, app *application.UseCases) console.Common {
			return console.Common{Views: v, Clock: clock, App: app}
		},
		AsConsoleRoutes(console.NewHomePages),
		AsConsoleRoutes(console.NewFailedOrderPages),
		AsConsoleRoutes(console.NewBillingPages),
		AsConsoleRoutes(console.NewShipmentPages),
		AsConsoleRoutes(console.NewOrganizationPages),
		AsConsoleRoutes(console.NewAuditPages),
		AsConsoleRoutes(console.NewInventoryPages),
	),
)

// ConsolePages is consolePages, for the tests of the pages, which build
// them over the command graph.
func ConsolePages() fx.Option { return consolePages }
