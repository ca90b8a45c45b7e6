package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/adapters/console"
	operatorapp "github.com/acme3pl/fulfillment/application/operator"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/operator"
)

const (
	consoleUsage       = "console takes link --subject NAME --roles r1,r2 [--ttl 15m], or sessions revoke --subject NAME"
	consoleLinkUsage   = "console link needs --subject NAME and --roles r1,r2 (viewer, ops, billing, admin) [--ttl 15m, at most 24h]"
	consoleRevokeUsage = "console sessions revoke needs --subject NAME"
)

// consoleCmd runs the console's commands (docs/console.md):
//
//	console link --subject NAME --roles r1,r2 [--ttl 15m]
//	console sessions revoke --subject NAME
func consoleCmd(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "link":
		return consoleLink(ctx, cfg, args[1:], stdout)
	case len(args) > 1 && args[0] == "sessions" && args[1] == "revoke":
		return consoleRevoke(ctx, cfg, args[2:], stdout)
	}
	return usagef(consoleUsage)
}

// consoleLink prints a one-time sign-in URL (sandbox only): the console's
// origin (CONSOLE_URL, else http://CONSOLE_ADDR) and the link's path.
func consoleLink(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("console link")
	subject := fs.String("subject", "", "who signs in: the name the audit log gives their actions")
	roles := fs.String("roles", "", "their roles, comma-separated (viewer, ops, billing, admin): the highest counts")
	ttl := fs.Duration("ttl", operator.DefaultLinkTTL, "how long the link may be used (at most 24h)")
	if err := parseCommand(fs, args, consoleLinkUsage, "subject", "roles"); err != nil {
		return err
	}
	names := strings.Split(*roles, ",")
	if _, err := operator.NewSignInLink(*subject, names, *ttl, time.Now()); err != nil {
		return usagef("console link: %v", err)
	}
	if cfg.Environment != domain.Sandbox {
		return errors.New("console link: sign-in links are for sandbox only; production signs in with CONSOLE_OIDC_ISSUER")
	}
	if cfg.ConsoleURL == "" {
		return errors.New("console link: set CONSOLE_ADDR (or CONSOLE_URL), the console's address, to print its link")
	}
	return withAppConns(ctx, cfg, 2, func(ctx context.Context, app *operatorapp.UseCases) error {
		token, err := app.IssueSignInLink.Handle(ctx, operatorapp.IssueSignInLink{Subject: *subject, Roles: names, TTL: *ttl})
		if err != nil {
			return fmt.Errorf("console link: %w", err)
		}
		fmt.Fprintln(stdout, cfg.ConsoleURL+console.SignInLinkPath(token))
		return nil
	})
}

// consoleRevoke ends every session of a subject, each refused at its next
// request, and says how many.
func consoleRevoke(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("console sessions revoke")
	subject := fs.String("subject", "", "whose sessions to end")
	if err := parseCommand(fs, args, consoleRevokeUsage, "subject"); err != nil {
		return err
	}
	return withAppConns(ctx, cfg, 2, func(ctx context.Context, app *operatorapp.UseCases) error {
		n, err := app.RevokeSessions.Handle(ctx, operatorapp.RevokeSessions{Subject: *subject})
		if err != nil {
			return fmt.Errorf("console sessions revoke: %w", err)
		}
		fmt.Fprintf(stdout, "ended %d session(s) of %s\n", n, *subject)
		return nil
	})
}
