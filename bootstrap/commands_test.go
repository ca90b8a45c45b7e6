package bootstrap_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/application"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	eventsapp "github.com/acme3pl/fulfillment/application/events"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/ports"
)

func TestCommandGraphIsValid(t *testing.T) {
	var app *application.UseCases
	var m *postgres.Migrator
	var relay *eventsapp.RelayEventsHandler
	if err := fx.ValidateApp(append(bootstrap.CommandOptions(testConfig(t), 2), fx.Populate(&app, &m, &relay))...); err != nil {
		t.Fatalf("the command graph does not validate: %v", err)
	}
}

// A command gets the server's use cases and migrations from the command graph,
// which needs no authentication settings, and the pool is closed after it.
func TestRunCommand(t *testing.T) {
	ctx := context.Background()
	seedWarehouse(t)
	cfg := testConfig(t)
	cfg.SigningKey = "" // commands that only touch the database need no auth settings
	var got []string
	err := bootstrap.RunCommand(ctx, cfg, 2, func(ctx context.Context, app *accessapp.UseCases) error {
		res, err := app.ListWarehouses.Handle(ctx, accessapp.ListWarehouses{OrganizationID: "org_graph", Page: ports.Page{Take: 10}})
		for _, w := range res.Items {
			got = append(got, w.ID)
		}
		return err
	})
	if err != nil || len(got) != 1 || got[0] != "wh_graph" {
		t.Fatalf("warehouses %v, err %v; want [wh_graph]", got, err)
	}
	err = bootstrap.RunCommand(ctx, cfg, 2, func(ctx context.Context, m bootstrap.Migrations) error {
		states, err := m.Status(ctx)
		if err == nil && (len(states) == 0 || !states[0].Applied) {
			err = errors.New("no applied migration")
		}
		return err
	})
	if err != nil {
		t.Fatalf("migrator: %v", err)
	}
	type several struct {
		fx.In
		App      *application.UseCases
		Migrator *postgres.Migrator
	}
	err = bootstrap.RunCommand(ctx, cfg, 2, func(_ context.Context, d several) error {
		if d.App == nil || d.Migrator == nil {
			return errors.New("a value of the struct is missing")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("several values: %v", err)
	}
	want := errors.New("the command's own error")
	if err := bootstrap.RunCommand(ctx, cfg, 1, func(context.Context, *application.UseCases) error { return want }); !errors.Is(err, want) {
		t.Fatalf("err %v, want the command's", err)
	}
}

func TestRunCommandReportsTheDatabase(t *testing.T) {
	cfg := testConfig(t)
	called := false
	run := func(context.Context, *application.UseCases) error { called = true; return nil }

	cfg.DatabaseURL = "postgres://postgres@127.0.0.1:1/nowhere?sslmode=disable"
	err := bootstrap.RunCommand(context.Background(), cfg, 1, run)
	if err == nil || !strings.HasPrefix(err.Error(), "the database at DATABASE_URL does not answer: ") || called {
		t.Fatalf("err %v (command run: %v), want the database not answering before the command runs", err, called)
	}

	cfg.DatabaseURL = "mysql://x"
	err = bootstrap.RunCommand(context.Background(), cfg, 1, run)
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL") || strings.Contains(err.Error(), "fx.") || called {
		t.Fatalf("err %v (command run: %v), want the cause naming DATABASE_URL", err, called)
	}
}
