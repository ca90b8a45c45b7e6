// Command fulfillment is the fulfillment service: the HTTP API (serve) and
// the operator's commands (migrate, seed, token, apikey, orders). Every setting
// comes from the environment (README.md, Configuration).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"go.uber.org/dig"
	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/bootstrap"
)

// Exit statuses: 0 success, 1 failure (one line on stderr), 2 bad usage.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const usage = `usage: fulfillment <command> [arguments]

commands:
  serve                                         run the HTTP API (and the console on CONSOLE_ADDR) until SIGTERM/SIGINT
  migrate [up|down|status]                      apply / roll back one / list migrations
  seed --file PATH                              load a fixture document
  token mint (--org ID | --warehouse ID) --scopes a,b [--ttl 1h]
                                                print a signed access token
  apikey create --org ID --scopes a,b [--name N] print a new API key
  apikey revoke KEY_ID                          revoke an API key
  apikey list --org ID                          list an organization's keys
  orders list --org ID [--status S] [--error CODE]
                                                list an organization's storefront order receipts
  orders replay --org ID (--order ORDER_ID | --all-failed) [--workers N]
                                                replay failed orders from their kept bodies
  orders purge                                  delete kept bodies past FAILED_ORDER_RETENTION
  rates set --org ID --file card.json           set an organization's rate card
  orgs limit --org ID --rate 50/s [--burst 100] set an organization's own API rate limit
  orgs limit --org ID --default                 give it the default limit back
  billing run                                   accrue, finalize and collect what is due
  billing close --org ID                        end an organization's period now and finalize it
  invoices preview --org ID [--charges]         print the open invoice as the API would show it (or its charges)
  invoices status --id ID --to STATUS           move a finalized invoice to another status
  charges add --org ID --reference REF --title T --quantity Q --unit-cost C [--description D] [--date YYYY-MM-DD]
                                                record an operator's charge (negative cost: a credit)
  events tail [--all] [--count N]               print the platform's events as they arrive
  events relay                                  publish what waits in the events outbox
  audit list [--org ID] [--actor A] [--since RFC3339]
                                                print the operators' audit records, oldest first (JSON lines)
  console link --subject NAME --roles r1,r2 [--ttl 15m]
                                                print a one-time sign-in URL of the console (sandbox only)
  console sessions revoke --subject NAME        end a person's console sessions
  version                                       print the version
  probe URL                                     GET URL; exit 0 when it answers 200

Every command that changes something for an operator (apikey create|revoke, orders replay,
rates set, orgs limit, billing close, invoices status, charges add) takes --actor NAME, the
name its audit record gives (default cli:<OS user>).

Settings come from the environment: DATABASE_URL, HTTP_ADDR, ENVIRONMENT,
AUTH_SIGNING_KEY, AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE, AUTH_ORG_CLAIM, AUTH_WAREHOUSE_CLAIM,
LOG_LEVEL, REQUEST_TIMEOUT, DB_MAX_CONNS, SHUTDOWN_DELAY, SHUTDOWN_TIMEOUT,
FAILED_ORDER_RETENTION, BILLING_TIMEZONE, BILLING_GRACE, BILLING_TERMS,
BILLING_COLLECTIONS_AFTER, BILLING_INTERVAL, EVENTS_NATS_URL, EVENTS_STREAM, EVENTS_NATS_CREDS,
EVENTS_NATS_USER, EVENTS_NATS_PASSWORD, EVENTS_NATS_TOKEN, ADMISSION_TARGET, ADMISSION_INTERVAL,
RATE_LIMIT, RATE_LIMIT_BURST, RATE_LIMIT_REDIS_URL, CONSOLE_ADDR, CONSOLE_URL, CONSOLE_OIDC_ISSUER,
CONSOLE_OIDC_CLIENT_ID, CONSOLE_OIDC_CLIENT_SECRET, CONSOLE_OIDC_ROLES_CLAIM, OTEL_*.
`

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func main() {
	os.Exit(run(context.Background(), os.Args[1:], environ(), os.Stdout, os.Stderr))
}

func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// run executes one command and returns its exit status. Errors are written
// as one line on stderr; a panic is too, never as a trace.
func run(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(stderr, "fulfillment: internal error: %v\n", v)
			code = exitFailure
		}
	}()
	err := dispatch(ctx, args, env, stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.Is(err, flag.ErrHelp):
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "fulfillment: %s\n", oneLine(err.Error()))
		}
		fmt.Fprint(stderr, usage)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "fulfillment: %s\n", oneLine(err.Error()))
		return exitFailure
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func dispatch(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	if cmd == "help" || cmd == "-h" || cmd == "--help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if cmd == "version" { // needs no configuration: works with an empty environment
		if len(rest) > 0 {
			return usagef("version takes no arguments")
		}
		fmt.Fprintln(stdout, bootstrap.Version)
		return nil
	}
	if cmd == "probe" { // needs no configuration: the chart's test hook runs it with none
		return probe(ctx, rest, stdout)
	}
	cfg, err := bootstrap.Load(env)
	if err != nil {
		return err
	}
	switch cmd {
	case "serve":
		if len(rest) > 0 {
			return usagef("serve takes no arguments")
		}
		return serve(cfg, stderr)
	case "migrate":
		return migrate(ctx, cfg, rest, stdout, stderr)
	case "token":
		return token(ctx, cfg, rest, stdout)
	case "orders":
		return orders(ctx, cfg, rest, stdout, stderr)
	}
	if run, ok := databaseCommands[cmd]; ok {
		return run(ctx, cfg, rest, stdout)
	}
	return usagef("unknown command %q", cmd)
}

// databaseCommands are the commands that work on the database and print
// only to stdout, by name.
var databaseCommands = map[string]func(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error{
	"seed":     seed,
	"apikey":   apikey,
	"rates":    rates,
	"orgs":     orgs,
	"billing":  billingCmd,
	"invoices": invoicesCmd,
	"charges":  charges,
	"events":   events,
	"audit":    auditCmd,
	"console":  consoleCmd,
}

// serve runs the fx graph until SIGTERM or SIGINT, then stops it: the
// server drains, the database closes, spans are flushed.
func serve(cfg bootstrap.Config, stderr io.Writer) error {
	if err := cfg.RequireAuth(); err != nil {
		return err
	}
	if err := cfg.RequireConsole(); err != nil {
		return err
	}
	if cfg.GOGC == "" {
		debug.SetGCPercent(bootstrap.ServeGCPercent)
	}
	app := fx.New(append(bootstrap.Options(cfg, stderr), fx.StopTimeout(cfg.ShutdownTimeout))...)
	if err := app.Err(); err != nil {
		return dig.RootCause(err)
	}
	startCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return hookCause(err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	exit := 0
	select {
	case <-sig:
	case s := <-app.Wait():
		exit = s.ExitCode
	}
	stopCtx, cancelStop := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancelStop()
	if err := app.Stop(stopCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if exit != 0 {
		return errors.New("the server stopped on an error (see the log)")
	}
	return nil
}

// hookCause strips fx's "OnStart hook added by … failed" wrapping so that
// the line says what is wrong.
func hookCause(err error) error {
	for strings.Contains(err.Error(), "hook added by") {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		err = u
	}
	return err
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%s: %v", fs.Name(), err)
	}
	return nil
}

// parseCommand parses a command's flags into fs; arguments left over, or a
// flag of required left empty, make the error the usage line needs.
func parseCommand(fs *flag.FlagSet, args []string, needs string, required ...string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("%s", needs)
	}
	for _, name := range required {
		if fs.Lookup(name).Value.String() == "" {
			return usagef("%s", needs)
		}
	}
	return nil
}

// orgSubcommand is the flag set of `cmd sub`, the only subcommand of cmd,
// with its --org flag, when args start with sub.
func orgSubcommand(cmd, sub string, args []string) (fs *flag.FlagSet, org *string, err error) {
	if len(args) == 0 || args[0] != sub {
		return nil, nil, usagef("%s takes the subcommand %s", cmd, sub)
	}
	fs = newFlagSet(cmd + " " + sub)
	return fs, fs.String("org", "", "organization ID"), nil
}
