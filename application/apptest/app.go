// Package apptest holds the in-memory fakes of the ports for the
// application's unit tests, one set for every context's use cases: DB is
// the database, its unit of work and repositories read and write its
// state — inside a unit of work on the transaction's copy, outside one
// (db.Pool()) on the state itself, each call under the database's mutex
// as a statement of its own would be. It is imported by _test.go files
// only (.golangci.yml's tests-only rule).
package apptest

import (
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	invoicingapp "github.com/acme3pl/fulfillment/application/invoicing"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
)

// App is every context's use cases on one fake database.
type App struct {
	*application.UseCases
	Access    *accessapp.UseCases
	Shipping  *shippingapp.UseCases
	Warehouse *warehouseapp.UseCases
	Intake    *intakeapp.UseCases
	Invoicing *invoicingapp.UseCases
}

// NewApp is the application on db, its use cases decorated as in
// production, at clock's time.
func NewApp(db *DB, env domain.Environment, clock *Clock, tracer trace.Tracer) *App {
	d := application.Deps{
		UnitOfWork: fakeUoW{db}, Repos: db.Pool(), Clock: clock, IDs: &IDs{},
		Tracer: tracer, Log: slog.New(slog.DiscardHandler), Environment: env,
	}
	return &App{
		UseCases:  application.New(d, nil),
		Access:    accessapp.New(d, KeyGenerator{}),
		Shipping:  shippingapp.New(d),
		Warehouse: warehouseapp.New(d, Billing{}),
		Intake:    intakeapp.New(d, intakeapp.Settings{FailedOrderRetention: 24 * time.Hour}),
		Invoicing: invoicingapp.New(d),
	}
}

// KeyGenerator makes the same key every time.
type KeyGenerator struct{}

func (KeyGenerator) GenerateAPIKey(env domain.Environment) (string, []byte, string, error) {
	return "fk_test_" + string(env) + "-secret", []byte("hash-of-the-key"), "fk_test_abcd", nil
}
