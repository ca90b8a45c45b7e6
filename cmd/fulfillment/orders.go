package main

// `fulfillment orders`: the on-call engineer's commands for storefront
// orders that failed (docs/storefront-intake.md, "When an order fails").

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/adapters/httpapi"
	"github.com/acme3pl/fulfillment/application"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports"
)

// replayWalkBatch is how many order IDs `replay --all-failed` reads at a
// time from the organization's failed orders.
const replayWalkBatch = 500

// replayBudget bounds one replay, which runs to its end (commit or
// rollback) even after an interrupt.
const replayBudget = 30 * time.Second

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
		httpapi.FormatTime(r.LastReceived()))
}

// replayTally counts the outcomes of a replay run.
type replayTally struct {
	mu                           sync.Mutex
	out                          io.Writer
	succeeded, duplicate, failed int
	firstFailure                 error // the first replay's error, for the run's audit record
	lastShown                    time.Time
	progress                     io.Writer // nil: no progress line
	progressShown                bool
	started                      time.Time
}

// add prints the order's line — order ID, outcome (succeeded, duplicate,
// failed), and the shipment ID (or the skip reason) or the error code —
// and counts it.
func (t *replayTally) add(orderID int64, res intakeapp.StorefrontOrderResult, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearProgress()
	switch {
	case err != nil:
		t.failed++
		if t.firstFailure == nil {
			t.firstFailure = err
		}
		fmt.Fprintf(t.out, "%d failed %s\n", orderID, application.KindOf(err).Code())
	case res.Duplicate:
		t.duplicate++
		fmt.Fprintf(t.out, "%d duplicate %s\n", orderID, shipmentOrSkip(res))
	default:
		t.succeeded++
		fmt.Fprintf(t.out, "%d succeeded %s\n", orderID, shipmentOrSkip(res))
	}
	if t.progress != nil && time.Since(t.lastShown) >= 200*time.Millisecond {
		t.lastShown = time.Now()
		n := t.succeeded + t.duplicate + t.failed
		rate := float64(n) / max(time.Since(t.started).Seconds(), 0.001)
		fmt.Fprintf(t.progress, "\rreplayed %d: %d succeeded, %d duplicate, %d failed (%.0f/s)",
			n, t.succeeded, t.duplicate, t.failed, rate)
		t.progressShown = true
	}
}

func (t *replayTally) clearProgress() {
	if t.progressShown {
		fmt.Fprint(t.progress, "\r\033[K")
		t.progressShown = false
	}
}

func (t *replayTally) summary() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearProgress()
	return fmt.Sprintf("replayed %d: %d succeeded, %d duplicate, %d failed",
		t.succeeded+t.duplicate+t.failed, t.succeeded, t.duplicate, t.failed)
}

func shipmentOrSkip(res intakeapp.StorefrontOrderResult) string {
	if res.ShipmentID != "" {
		return res.ShipmentID
	}
	if res.Skipped != "" {
		return string(res.Skipped)
	}
	return "-"
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

// newTraceID makes the trace ID a replay from the command line records on
// the receipt (the command exports no spans; the ID tells its replays
// apart from the storefront's deliveries).
func newTraceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
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
	tally := &replayTally{out: stdout, started: time.Now()}
	if *all && isTerminal(stderr) {
		tally.progress = stderr
	}
	var walkErr, orgErr error
	input := map[string]any{"organizationId": *org, "allFailed": *all}
	if !*all {
		input["orderId"] = single
	}
	op := application.Operation{Actor: actor(), Action: audit.OrdersReplay, OrganizationID: *org, Input: input}
	err := withAppConns(ctx, cfg, *workers+1, func(ctx context.Context, deps orderDeps) error {
		// One record of the run, written once it ended, with its outcome.
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replayBudget)
			defer cancel()
			_, _ = deps.App.RecordOperatorAction.Handle(rctx, application.RecordOperatorAction{Operation: op,
				Outcome: replayOutcome(orgErr, walkErr, sigCtx.Err(), tally)})
		}()
		if orgErr = checkOrganization(ctx, deps.App, "orders replay", *org); orgErr != nil {
			return orgErr
		}
		app := deps.Intake
		replay := func(id int64) {
			// A replay in flight is not cut by an interrupt: it ends as a
			// delivery would, committed or rolled back.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replayBudget)
			defer cancel()
			res, err := app.ReplayStorefrontOrder.Handle(rctx, intakeapp.ReplayStorefrontOrder{
				OrganizationID: *org, OrderID: id, TraceID: newTraceID(),
			})
			tally.add(id, res, err)
		}
		if !*all {
			replay(single)
			return nil
		}
		ids := make(chan int64)
		var wg sync.WaitGroup
		for range *workers {
			wg.Go(func() {
				for id := range ids {
					replay(id)
				}
			})
		}
		walkErr = walkFailed(sigCtx, app, *org, ids)
		close(ids)
		wg.Wait()
		return nil
	})
	if orgErr != nil {
		return orgErr // nothing was replayed: no summary
	}
	fmt.Fprintln(stdout, tally.summary())
	switch {
	case err != nil:
		return fmt.Errorf("orders replay: %w", err)
	case sigCtx.Err() != nil && ctx.Err() == nil:
		return errors.New("orders replay: interrupted; the orders replayed stay replayed, run it again to replay the rest")
	case walkErr != nil:
		return fmt.Errorf("orders replay: list the failed orders: %w", walkErr)
	case tally.failed > 0:
		return fmt.Errorf("orders replay: %d of the orders were not replayed (see their lines above)", tally.failed)
	}
	return nil
}

// replayOutcome is the outcome of a replay run as its audit record says
// it: the code of what failed it (the organization, the walk, an
// interrupt, else the first replay that failed), else done when an order
// was replayed, else unchanged (nothing new: duplicates, or no failed
// order).
func replayOutcome(orgErr, walkErr, interrupted error, t *replayTally) audit.Outcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, err := range []error{orgErr, walkErr, interrupted, t.firstFailure} {
		if err != nil {
			return application.AuditOutcome(err)
		}
	}
	if t.succeeded > 0 {
		return audit.Done
	}
	return audit.Unchanged
}

// walkFailed sends the IDs of the organization's failed orders that keep
// their body to ids, in ascending order, until none is left or ctx ends.
func walkFailed(ctx context.Context, app *intakeapp.UseCases, org string, ids chan<- int64) error {
	var after int64
	for {
		batch, err := app.ListReplayableOrders.Handle(ctx, intakeapp.ListReplayableOrders{
			OrganizationID: org, After: after, Limit: replayWalkBatch,
		})
		if err != nil {
			return err // after an interrupt, the caller says so instead
		}
		for _, id := range batch {
			select {
			case ids <- id:
			case <-ctx.Done():
				return nil
			}
			after = id
		}
		if len(batch) < replayWalkBatch {
			return nil
		}
	}
}
