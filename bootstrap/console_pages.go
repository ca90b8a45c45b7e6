package bootstrap

import (
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/console"
)

// AsConsoleRoutes annotates a constructor of a group of the console's pages
// and actions for its handler.
func AsConsoleRoutes(ctor any) any {
	return fx.Annotate(ctor, fx.As(new(console.Routes)), fx.ResultTags(`group:"console-routes"`))
}

// consolePages are the console's pages and actions (docs/console.md), each
// group over its context's use cases.
var consolePages = fx.Options()
