package application

import (
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/ports"
)

// Application is every use case of the service, decorated.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands change state.
type Commands struct {
	Seed Handler[Seed, ports.FixtureCounts]
}

// Queries read state.
type Queries struct {
	ListWarehouses Handler[ListWarehouses, WarehousePage]
}

// Deps are what the use cases need.
type Deps struct {
	UnitOfWork ports.UnitOfWork
	Repos      ports.Repositories // bound to the pool, for reads outside a transaction
	Clock      ports.Clock
	IDs        ports.IDGenerator
	Tracer     trace.Tracer
	Log        *slog.Logger
}

// New builds the application.
func New(d Deps) *Application {
	return &Application{
		Commands: Commands{
			Seed: Decorate("Seed", NewSeedHandler(d.UnitOfWork), d.Tracer, d.Log),
		},
		Queries: Queries{
			ListWarehouses: Decorate("ListWarehouses", NewListWarehousesHandler(d.Repos.Warehouses), d.Tracer, d.Log),
		},
	}
}
