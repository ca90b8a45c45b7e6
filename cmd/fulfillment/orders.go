package main

// `fulfillment orders`: the on-call engineer's commands for storefront
// orders that failed (docs/storefront-intake.md, "When an order fails").

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports"
)

// orderDeps is what `orders list` and `orders replay` use: the intake's use
// cases, and the shared kernel's check that the organization exists (an
// unknown one fails rather than printing nothing).
type orderDeps struct {
	fx.In
	App    *application.UseCases
	Intake *intakeapp.UseCases
}

func orders(ctx context.Context, cfg bootstrap.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("orders takes one of list, replay, purge")
	}
	switch args[0] {
	case "list":
		return ordersList(ctx, cfg, args[1:], stdout)
	case "replay":
		return ordersReplay(ctx, cfg, args[1:], stdout, stderr)
	case "purge":
		if len(args) > 1 {
			return usagef("orders purge takes no arguments")
		}
		return withApp(ctx, cfg, func(ctx context.Context, app *intakeapp.UseCases) error {
			n, err := app.PurgeFailedOrders.Handle(ctx, intakeapp.PurgeFailedOrders{})
			if err != nil {
				return fmt.Errorf("orders purge: purged %d, then: %w", n, err)
			}
			fmt.Fprintf(stdout, "purged %d kept bodies of failed orders whose last delivery is older than %s\n", n, cfg.FailedOrderRetention)
			return nil
		})
	}
	return usagef("orders: unknown subcommand %q (list, replay, purge)", args[0])
}

// ordersList prints one line per receipt, latest delivery first:
// order ID, status, last error, shipment ID (or the skip reason), attempts,
// the kept body's size and the time of the last delivery; "-" for none.
func ordersList(ctx context.Context, cfg bootstrap.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("orders list")
	org := fs.String("org", "", "organization ID")
	status := fs.String("status", "", "succeeded or failed")
	code := fs.String("error", "", "an error code of the intake")
	if err := parseCommand(fs, args, "orders list needs --org ID [--status succeeded|failed] [--error CODE]", "org"); err != nil {
		return err
	}
	if err := checkIDFlag("orders list", "org", *org); err != nil {
		return err
	}
	filter, err := intakeapp.ParseReceiptFilter(*status, *code)
	if err != nil {
		return usagef("orders list: %v", err)
	}
	return withApp(ctx, cfg, func(ctx context.Context, deps orderDeps) error {
		if err := checkOrganization(ctx, deps.App, "orders list", *org); err != nil {
			return err
		}
		app := deps.Intake
		page := ports.Page{Take: 500}
		for {
			res, err := app.ListOrderReceipts.Handle(ctx, intakeapp.ListOrderReceipts{
				OrganizationID: *org, Filter: filter, Page: page,
			})
			if err != nil {
				return fmt.Errorf("orders list: %w", err)
			}
			for _, r := range res.Items {
				fmt.Fprintln(stdout, receiptLine(r))
			}
			if !res.More {
				return nil
			}
			page.Skip += page.Take
		}
	})
}

func receiptLine(r *intake.OrderReceipt) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	shipment := r.ShipmentID()
	if shipment == "" {
		shipment = string(r.Skipped())
	}
	kept := "-"
	if r.PayloadKept() {
		kept = strconv.Itoa(r.PayloadBytes())
	}
	return fmt.Sprintf("%d %s error=%s shipment=%s attempts=%d payloadBytes=%s lastReceivedAt=%s",
		r.OrderID(), r.Status(), dash(r.LastError()), dash(shipment), r.Attempts(), kept,
		apiview.FormatTime(r.LastReceived()))
}

// replayPrinter prints a replay run's lines as the use case reports its
// orders (one at a time), and its progress on a terminal.
type replayPrinter struct {
	out           io.Writer
	progress      io.Writer // nil: no progress line
	lastShown     time.Time
	progressShown bool
	started       time.Time
}

// each prints the order's line — order ID, outcome (succeeded, duplicate,
// failed), and the shipment ID (or the skip reason) or the error code.
func (p *replayPrinter) each(o intakeapp.ReplayedOrder) {
	p.clearProgress()
	if o.Err != nil {
		fmt.Fprintf(p.out, "%d failed %s\n", o.OrderID, application.KindOf(o.Err).Code())
	} else {
		fmt.Fprintf(p.out, "%d %s %s\n", o.OrderID, o.Outcome(), o.ShipmentOrSkip())
	}
	if p.progress != nil && time.Since(p.lastShown) >= 200*time.Millisecond {
		p.lastShown = time.Now()
		run := o.Run
		rate := float64(run.Replayed()) / max(time.Since(p.started).Seconds(), 0.001)
		fmt.Fprintf(p.progress, "\rreplayed %d: %d succeeded, %d duplicate, %d failed (%.0f/s)",
			run.Replayed(), run.Succeeded, run.Duplicate, run.Failed, rate)
		p.progressShown = true
	}
}

func (p *replayPrinter) clearProgress() {
	if p.progressShown {
		fmt.Fprint(p.progress, "\r\033[K")
		p.progressShown = false
	}
}

// isTerminal tells whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ordersReplay replays one order, or every failed order of the
// organization that keeps its body, with a few workers (each replay is
// the intake's own transaction). SIGINT or SIGTERM stops the walk: the
// replays in flight end (commit or roll back), the summary is printed, and
// the command fails; running it again replays what is left.
func ordersReplay(ctx context.Context, cfg bootstrap.Config, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("orders replay")
	org := fs.String("org", "", "organization ID")
	orderFlag := fs.String("order", "", "storefront order ID")
	all := fs.Bool("all-failed", false, "every failed order that keeps its body")
	workers := fs.Int("workers", 8, "replays at a time")
	actor := actorFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	const needs = "orders replay needs --org ID and one of --order ORDER_ID, --all-failed [--workers N] [--actor NAME]"
	if *org == "" || fs.NArg() > 0 || (*orderFlag == "") == !*all {
		return usagef(needs)
	}
	if err := checkIDFlag("orders replay", "org", *org); err != nil {
		return err
	}
	if *workers < 1 || *workers > 64 {
		return usagef("orders replay: --workers must be from 1 to 64")
	}
	if err := checkActor("orders replay", actor()); err != nil {
		return err
	}
	var single int64
	if *orderFlag != "" {
		id, err := strconv.ParseInt(*orderFlag, 10, 64)
		if err != nil || id <= 0 {
			return usagef("orders replay: --order must be a positive 64-bit integer")
		}
		single = id
	}
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	printer := &replayPrinter{out: stdout, started: time.Now()}
	if *all && isTerminal(stderr) {
		printer.progress = stderr
	}
	var run intakeapp.ReplayRun
	var orgErr error
	err := withAppConns(ctx, cfg, *workers+1, func(_ context.Context, deps orderDeps) error {
		// The use case's context is the interrupt's: it stops the walk; the
		// replays in flight end, and the run's record is written.
		run, orgErr = deps.Intake.ReplayFailedOrders.Handle(sigCtx, intakeapp.ReplayFailedOrders{
			OrganizationID: *org, OrderID: single, AllFailed: *all, Workers: *workers, Actor: actor(), Each: printer.each,
		})
		return nil
	})
	if orgErr != nil {
		return fmt.Errorf("orders replay: %w", orgErr) // nothing was replayed: no summary
	}
	printer.clearProgress()
	fmt.Fprintln(stdout, run.Summary())
	switch {
	case err != nil:
		return fmt.Errorf("orders replay: %w", err)
	case sigCtx.Err() != nil && ctx.Err() == nil:
		return errors.New("orders replay: interrupted; the orders replayed stay replayed, run it again to replay the rest")
	case run.WalkErr != nil:
		return fmt.Errorf("orders replay: list the failed orders: %w", run.WalkErr)
	case run.Failed > 0:
		return fmt.Errorf("orders replay: %d of the orders were not replayed (see their lines above)", run.Failed)
	}
	return nil
}
