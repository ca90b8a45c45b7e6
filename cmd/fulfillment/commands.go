package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/fixture"
	"github.com/acme3pl/fulfillment/adapters/identity"
	"github.com/acme3pl/fulfillment/adapters/system"
	"github.com/acme3pl/fulfillment/application"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain"
)

// commandTimeout bounds an operator command's work on the database.
const commandTimeout = 10 * time.Minute

// command runs fn, within commandTimeout, with what it asks for from the
// command graph (bootstrap.RunCommand: the server's own wiring of the
// database and the use cases) on a pool of conns connections. A command is
// a function of its flags that calls it:
//
//	return command(ctx, cfg, 4, func(ctx context.Context, app *intakeapp.UseCases) error { … })
func command[T any](ctx context.Context, cfg bootstrap.Config, conns int, fn func(context.Context, T) error) error {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	return bootstrap.RunCommand(ctx, cfg, conns, fn)
}

// withApp runs fn with a context's use cases (T: *application.UseCases,
// *intakeapp.UseCases, …) on the database at
// DATABASE_URL, without spans and without their log lines: a command
// reports its own outcome, in one line.
func withApp[T any](ctx context.Context, cfg bootstrap.Config, fn func(ctx context.Context, app T) error) error {
	return command(ctx, cfg, 4, fn)
}

// withAppConns is withApp with a pool of conns connections.
func withAppConns[T any](ctx context.Context, cfg bootstrap.Config, conns int, fn func(ctx context.Context, app T) error) error {
	return command(ctx, cfg, conns, fn)
}

func migrate(ctx context.Context, cfg bootstrap.Config, args []string, stdout, stderr io.Writer) error {
	sub := "up"
	if len(args) > 1 {
		return usagef("migrate takes one of up, down, status")
	}
	if len(args) == 1 {
		sub = args[0]
	}
	if sub != "up" && sub != "down" && sub != "status" {
		return usagef("migrate: unknown subcommand %q (up, down, status)", sub)
	}
	return command(ctx, cfg, 4, func(ctx context.Context, m bootstrap.Migrations) error {
		switch sub {
		case "up":
			// A migration that gave up waiting for a lock (MIGRATION_LOCK_TIMEOUT)
			// is tried again after a pause; the operator sees why it takes longer.
			m.ReportRetries(func(r bootstrap.MigrationRetry) {
				fmt.Fprintf(stderr, "migration %s gave up waiting for a lock another session holds (attempt %d of %d); trying again in %s\n",
					r.Migration, r.Attempt, r.Attempts, r.Wait)
			})
			applied, err := m.Up(ctx)
			if err != nil {
				return fmt.Errorf("migrate up: %w", err)
			}
			if len(applied) == 0 {
				fmt.Fprintln(stdout, "schema is up to date")
			}
			for _, name := range applied {
				fmt.Fprintf(stdout, "applied %s\n", name)
			}
		case "down":
			name, err := m.Down(ctx)
			if err != nil {
				return fmt.Errorf("migrate down: %w", err)
			}
			if name == "" {
				fmt.Fprintln(stdout, "no migration to roll back")
			} else {
				fmt.Fprintf(stdout, "rolled back %s\n", name)
			}
		case "status":
			states, err := m.Status(ctx)
			if err != nil {
				return fmt.Errorf("migrate status: %w", err)
			}
			for _, s := range states {
				mark := "pending"
				if s.Applied {
					mark = "applied"
				}
				fmt.Fprintf(stdout, "%-8s %s\n", mark, s.Name)
			}
		}
		return nil
	})
}

func seed(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("seed")
	file := fs.String("file", "", "fixture document (JSON)")
	if err := parseCommand(fs, args, "seed needs --file PATH and nothing else", "file"); err != nil {
		return err
	}
	f, err := os.Open(*file)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	defer func() { _ = f.Close() }()
	doc, err := fixture.Decode(f, system.Clock{}.Now())
	if err != nil {
		return fmt.Errorf("seed %s: %w", *file, err)
	}
	return withApp(ctx, cfg, func(ctx context.Context, app *application.UseCases) error {
		counts, err := app.Seed.Handle(ctx, application.Seed{Fixture: doc})
		if err != nil {
			return err
		}
		parts := make([]string, 0, len(counts))
		for _, k := range []string{"organizations", "warehouses", "products", "cartons", "stock", "invoices", "apiKeys", "webhookSecrets", "rateCards"} {
			parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
		}
		fmt.Fprintf(stdout, "seeded (new records): %s\n", strings.Join(parts, " "))
		return nil
	})
}

func splitScopes(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseScopes reads --scopes: at least one name, each a scope an
// organization's token or API key holds (domain.Scopes). Anything else is
// a usage error of cmd, before anything is done.
func parseScopes(cmd, list string) ([]domain.Scope, error) {
	scopes, err := domain.ParseScopeList(list)
	switch {
	case errors.Is(err, domain.ErrNoScope):
		return nil, usagef("%s needs --scopes with at least one of locations, invoices, shipments, inventory", cmd)
	case err != nil:
		return nil, usagef("%s: %v", cmd, err)
	}
	return scopes, nil
}

// tokenScopes reads token mint's --scopes: an organization's token holds
// scopes of domain.Scopes, a warehouse's token the scope warehouse only (the
// one its routes check; no other route takes a warehouse's token).
func tokenScopes(list string, warehouse bool) ([]string, error) {
	if !warehouse {
		scopes, err := parseScopes("token mint", list)
		out := make([]string, len(scopes))
		for i, s := range scopes {
			out[i] = string(s)
		}
		return out, err
	}
	names := splitScopes(list)
	if len(names) == 0 {
		return nil, usagef("token mint --warehouse needs --scopes warehouse")
	}
	for _, n := range names {
		if n != string(domain.ScopeWarehouse) {
			return nil, usagef("token mint: %q is not a scope of a warehouse's token (warehouse)", n)
		}
	}
	return []string{string(domain.ScopeWarehouse)}, nil
}

// token mints an access token of an organization that exists, or of a
// warehouse that exists and is active (the database at DATABASE_URL says
// which): a token the service would refuse, or that could reach nothing, is
// not printed.
func token(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs, org, err := orgSubcommand("token", "mint", args)
	if err != nil {
		return err
	}
	warehouse := fs.String("warehouse", "", "warehouse ID (a token of the warehouse's management system)")
	scopeList := fs.String("scopes", "", "comma-separated scopes")
	ttl := fs.Duration("ttl", time.Hour, "lifetime")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if (*org == "") == (*warehouse == "") || fs.NArg() > 0 {
		return usagef("token mint needs exactly one of --org ID and --warehouse ID, and --scopes a,b [--ttl 1h]")
	}
	if *ttl <= 0 {
		return usagef("token mint: --ttl must be positive")
	}
	if err := errors.Join(checkIDFlag("token mint", "org", *org), checkIDFlag("token mint", "warehouse", *warehouse)); err != nil {
		return err
	}
	scopes, err := tokenScopes(*scopeList, *warehouse != "")
	if err != nil {
		return err
	}
	if cfg.SigningKey == "" {
		return fmt.Errorf("token mint: AUTH_SIGNING_KEY is not set")
	}
	return withApp(ctx, cfg, func(ctx context.Context, app *application.UseCases) error {
		who := application.CheckPrincipal{OrganizationID: *org, WarehouseID: *warehouse}
		if _, err := app.CheckPrincipal.Handle(ctx, who); err != nil {
			return fmt.Errorf("token mint: %w", err)
		}
		tok, err := identity.MintToken(cfg.TokenConfig(nil), identity.MintParams{
			Organization: *org, Warehouse: *warehouse, Scopes: scopes, TTL: *ttl,
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, tok)
		return nil
	})
}

// checkIDFlag refuses, as bad usage, an ID flag whose value has a shape no
// ID of the service has (domain.ValidID: a space, a quote, 65 characters).
func checkIDFlag(cmd, flag, value string) error {
	if value != "" && !domain.ValidID(value) {
		return usagef("%s: --%s %q is not an ID", cmd, flag, value)
	}
	return nil
}

// checkOrganization fails, naming it, when the organization does not exist:
// a command on an unknown organization is refused, not an empty answer.
func checkOrganization(ctx context.Context, app *application.UseCases, cmd, org string) error {
	if _, err := app.CheckPrincipal.Handle(ctx, application.CheckPrincipal{OrganizationID: org}); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}

// apiKeyListDeps is what `apikey list` uses: the API keys' use cases, and
// the shared kernel's check that the organization exists.
type apiKeyListDeps struct {
	fx.In
	App    *application.UseCases
	Access *accessapp.UseCases
}

func apikey(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("apikey takes one of create, revoke, list")
	}
	switch args[0] {
	case "create":
		fs := newFlagSet("apikey create")
		org := fs.String("org", "", "organization ID")
		scopes := fs.String("scopes", "", "comma-separated scopes")
		name := fs.String("name", "", "a name people recognise")
		actor := actorFlag(fs)
		if err := parseCommand(fs, args[1:], "apikey create needs --org ID --scopes a,b [--name N] [--actor NAME]", "org", "scopes"); err != nil {
			return err
		}
		if err := checkActor("apikey create", actor()); err != nil {
			return err
		}
		if err := checkIDFlag("apikey create", "org", *org); err != nil {
			return err
		}
		keyScopes, err := parseScopes("apikey create", *scopes)
		if err != nil {
			return err
		}
		c := accessapp.CreateAPIKey{OrganizationID: *org, Name: *name, Scopes: keyScopes, Actor: actor()}
		return withApp(ctx, cfg, func(ctx context.Context, app *accessapp.UseCases) error {
			plain, err := app.CreateAPIKey.Handle(ctx, c)
			if err != nil {
				return fmt.Errorf("apikey create: %w", err)
			}
			fmt.Fprintln(stdout, plain)
			return nil
		})
	case "revoke":
		// KEY_ID first or after the flags: apikey revoke KEY_ID [--actor NAME].
		fs := newFlagSet("apikey revoke")
		actor := actorFlag(fs)
		const needs = "apikey revoke takes one KEY_ID [--actor NAME]"
		rest := args[1:]
		var id string
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			id, rest = rest[0], rest[1:]
		}
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if id == "" && fs.NArg() == 1 {
			id = fs.Arg(0)
		} else if fs.NArg() > 0 {
			return usagef(needs)
		}
		if !domain.ValidID(id) {
			return usagef(needs)
		}
		if err := checkActor("apikey revoke", actor()); err != nil {
			return err
		}
		return withApp(ctx, cfg, func(ctx context.Context, app *accessapp.UseCases) error {
			if _, err := app.RevokeAPIKey.Handle(ctx, accessapp.RevokeAPIKey{KeyID: id, Actor: actor()}); err != nil {
				return fmt.Errorf("apikey revoke %s: %w", id, err)
			}
			fmt.Fprintf(stdout, "revoked %s\n", id)
			return nil
		})
	case "list":
		fs := newFlagSet("apikey list")
		org := fs.String("org", "", "organization ID")
		if err := parseCommand(fs, args[1:], "apikey list needs --org ID", "org"); err != nil {
			return err
		}
		if err := checkIDFlag("apikey list", "org", *org); err != nil {
			return err
		}
		return withApp(ctx, cfg, func(ctx context.Context, app apiKeyListDeps) error {
			if err := checkOrganization(ctx, app.App, "apikey list", *org); err != nil {
				return err
			}
			keys, err := app.Access.ListAPIKeys.Handle(ctx, accessapp.ListAPIKeys{OrganizationID: *org})
			if err != nil {
				return fmt.Errorf("apikey list: %w", err)
			}
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tENVIRONMENT\tSCOPES\tCREATED\tREVOKED")
			for _, k := range keys {
				scopes := make([]string, len(k.Scopes))
				for i, s := range k.Scopes {
					scopes[i] = string(s)
				}
				revoked := "-"
				if k.RevokedAt != nil {
					revoked = k.RevokedAt.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, k.Environment,
					strings.Join(scopes, ","), k.CreatedAt.UTC().Format(time.RFC3339), revoked)
			}
			return tw.Flush()
		})
	}
	return usagef("apikey: unknown subcommand %q (create, revoke, list)", args[0])
}
