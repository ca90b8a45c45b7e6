package main

// The audit log's side of the commands (docs/audit.md): every operator
// command's --actor, and `audit list`.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"time"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// actorFlag adds --actor to an operator command's flags; the function it
// returns is the actor its audit record names once the flags are parsed:
// --actor NAME, else "cli:" and the OS user.
func actorFlag(fs *flag.FlagSet) func() audit.Actor {
	name := fs.String("actor", "", "who acts, for the audit log (default cli:<OS user>)")
	return func() audit.Actor { return audit.CLIActor(*name, osUser()) }
}

// osUser is the name of the user running the command: the account's, else
// $USER; "" when neither is known (a container's numeric user).
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// checkActor refuses an --actor the audit log cannot name (bad usage).
func checkActor(cmd string, a audit.Actor) error {
	if err := a.Validate(); err != nil {
		return usagef("%s: --actor: %v", cmd, err)
	}
	return nil
}

const auditListUsage = "audit list [--org ID] [--actor A] [--since RFC3339]"

// auditCmd runs `audit list`: the audit records, oldest first, one JSON
// object a line.
func auditCmd(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "list" {
		return usagef("audit takes the subcommand list: %s", auditListUsage)
	}
	fs := newFlagSet("audit list")
	org := fs.String("org", "", "only this organization's records")
	actor := fs.String("actor", "", "only this actor's records (its subject or e-mail)")
	since := fs.String("since", "", "only records at or after this time (RFC 3339)")
	if err := parseCommand(fs, args[1:], auditListUsage); err != nil {
		return err
	}
	q := auditports.Query{OrganizationID: *org, Actor: *actor}
	if *org != "" && !domain.ValidID(*org) {
		return usagef("audit list: --org %q is not an ID", *org)
	}
	if *since != "" {
		t, err := time.Parse(time.RFC3339Nano, *since)
		if err != nil {
			return usagef("audit list: --since %q is not a time in RFC 3339 (2030-11-01T00:00:00Z)", *since)
		}
		q.Since = t
	}
	return withAppConns(ctx, cfg, 2, func(ctx context.Context, app *application.UseCases) error {
		enc := json.NewEncoder(stdout)
		_, err := app.ListAuditRecords.Handle(ctx, application.ListAuditRecords{Query: q, Each: func(r audit.Record) error {
			return enc.Encode(apiview.AuditRecordOf(r))
		}})
		if err != nil {
			return fmt.Errorf("audit list: %w", err)
		}
		return nil
	})
}
