package intake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/audit"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// ReplayWalkBatch is how many order IDs a replay of every failed order
// reads at a time from the organization's failed orders.
const ReplayWalkBatch = 500

// ReplayBudget bounds one order's replay, which runs to its end (commit or
// rollback) even after the run was stopped.
const ReplayBudget = 30 * time.Second

// ReplayFailedOrders is an operator's replay (`fulfillment orders replay`,
// the console's /failed-orders/replay and /failed-orders/replay-all): one
// order, or every failed order of the organization that keeps its body,
// with a few workers, each replay the intake's own transaction. The run
// writes one audit record (orders.replay) once it ended, with its outcome.
// The context of Handle stops the walk (an interrupt, a client gone): the
// replays in flight end, committed or rolled back, and the rest is left
// for another run.
type ReplayFailedOrders struct {
	OrganizationID string
	// OrderID is the one order to replay; 0 replays every failed order
	// that keeps its body (AllFailed).
	OrderID   int64
	AllFailed bool
	// Code, with AllFailed, replays only the failed orders whose last
	// error is this code.
	Code string
	// Workers replay at a time (AllFailed); below 1 is 1.
	Workers int
	Actor   audit.Actor
	// Each, when set, is told of each order replayed, one at a time, with
	// the run's counts so far: the CLI prints its line, the console streams
	// it.
	Each func(ReplayedOrder)
}

// SpanAttributes names the organization on the use case's span.
func (c ReplayFailedOrders) SpanAttributes() []attribute.KeyValue {
	return application.OrganizationAttributes(c.OrganizationID)
}

// ReplayedOrder is one order's replay in a run, and the run's counts with
// it.
type ReplayedOrder struct {
	OrderID int64
	Result  StorefrontOrderResult
	Err     error
	Run     ReplayRun
}

// ShipmentOrSkip is the replay's shipment ID, or the reason it made none,
// or "-".
func (o ReplayedOrder) ShipmentOrSkip() string {
	if o.Result.ShipmentID != "" {
		return o.Result.ShipmentID
	}
	if o.Result.Skipped != "" {
		return string(o.Result.Skipped)
	}
	return "-"
}

// Outcome is the order's outcome word: succeeded, duplicate or failed.
func (o ReplayedOrder) Outcome() string {
	switch {
	case o.Err != nil:
		return "failed"
	case o.Result.Duplicate:
		return "duplicate"
	}
	return "succeeded"
}

// ReplayRun counts the outcomes of a run.
type ReplayRun struct {
	Succeeded, Duplicate, Failed int
	// Interrupted: the walk was stopped before its end.
	Interrupted bool
	// WalkErr is the error of reading the failed orders, which ended the
	// walk early.
	WalkErr error
	// FirstFailure is the first replay's error.
	FirstFailure error
}

// Replayed is how many orders were replayed.
func (r ReplayRun) Replayed() int { return r.Succeeded + r.Duplicate + r.Failed }

// Summary is the run's summary line, as `orders replay` prints it.
func (r ReplayRun) Summary() string {
	return fmt.Sprintf("replayed %d: %d succeeded, %d duplicate, %d failed", r.Replayed(), r.Succeeded, r.Duplicate, r.Failed)
}

// outcome is the run's outcome as its audit record says it: the code of
// what failed it (the walk, an interrupt, else the first replay that
// failed), else done when an order was replayed, else unchanged
// (duplicates, or no failed order).
func (r ReplayRun) outcome(interrupted error) audit.Outcome {
	for _, err := range []error{r.WalkErr, interrupted, r.FirstFailure} {
		if err != nil {
			return application.AuditOutcome(err)
		}
	}
	if r.Succeeded > 0 {
		return audit.Done
	}
	return audit.Unchanged
}

// ReplayFailedOrdersHandler answers ReplayFailedOrders.
type ReplayFailedOrdersHandler struct {
	check  application.HandlerFunc[application.CheckPrincipal, struct{}]
	replay application.Handler[ReplayStorefrontOrder, StorefrontOrderResult]
	list   application.Handler[ListReplayableOrders, []int64]
	audit  *application.Auditor[intakeports.Repositories]
}

// NewReplayFailedOrdersHandler builds the handler on the intake's replay
// of one order and its list of replayable orders.
func NewReplayFailedOrdersHandler(d application.Deps[intakeports.Repositories], replay application.Handler[ReplayStorefrontOrder, StorefrontOrderResult],
	list application.Handler[ListReplayableOrders, []int64],
) *ReplayFailedOrdersHandler {
	return &ReplayFailedOrdersHandler{
		check:  application.NewCheckPrincipalHandler(d.Repos.Organizations, d.Repos.Warehouses),
		replay: replay, list: list,
		audit: application.NewAuditor(d.UnitOfWork, d.Clock, d.IDs),
	}
}

// Handle runs the replay. It fails only when the organization is not one
// (nothing replayed); every other trouble is in the run's counts. The
// audit record is written in either case, after the run, even when ctx
// ended.
func (h *ReplayFailedOrdersHandler) Handle(ctx context.Context, c ReplayFailedOrders) (run ReplayRun, err error) {
	input := map[string]any{"organizationId": c.OrganizationID, "allFailed": c.AllFailed}
	if !c.AllFailed {
		input["orderId"] = c.OrderID
	}
	if c.Code != "" {
		input["code"] = c.Code
	}
	op := application.Operation{Actor: c.Actor, Action: audit.OrdersReplay, OrganizationID: c.OrganizationID, Input: input}
	var mu sync.Mutex
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReplayBudget)
		defer cancel()
		outcome := run.outcome(ctx.Err())
		if err != nil {
			outcome = application.AuditOutcome(err)
		}
		_ = h.audit.Record(rctx, op, outcome)
	}()
	if _, err := h.check(ctx, application.CheckPrincipal{OrganizationID: c.OrganizationID}); err != nil {
		return ReplayRun{}, err
	}
	replay := func(id int64) {
		// A replay in flight is not cut by a stop: it ends as a delivery
		// would, committed or rolled back.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReplayBudget)
		defer cancel()
		res, err := h.replay.Handle(rctx, ReplayStorefrontOrder{OrganizationID: c.OrganizationID, OrderID: id, TraceID: newTraceID()})
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			run.Failed++
			if run.FirstFailure == nil {
				run.FirstFailure = err
			}
		case res.Duplicate:
			run.Duplicate++
		default:
			run.Succeeded++
		}
		if c.Each != nil {
			c.Each(ReplayedOrder{OrderID: id, Result: res, Err: err, Run: run})
		}
	}
	if !c.AllFailed {
		replay(c.OrderID)
		return run, nil
	}
	ids := make(chan int64)
	var wg sync.WaitGroup
	for range max(c.Workers, 1) {
		wg.Go(func() {
			for id := range ids {
				replay(id)
			}
		})
	}
	walkErr := h.walk(ctx, c.OrganizationID, c.Code, ids)
	close(ids)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	run.WalkErr = walkErr
	run.Interrupted = ctx.Err() != nil
	return run, nil
}

// walk sends the IDs of the organization's failed orders that keep their
// body to ids, in ascending order, until none is left or ctx ends.
func (h *ReplayFailedOrdersHandler) walk(ctx context.Context, org, code string, ids chan<- int64) error {
	var after int64
	for {
		batch, err := h.list.Handle(ctx, ListReplayableOrders{OrganizationID: org, Code: code, After: after, Limit: ReplayWalkBatch})
		if err != nil {
			return err // after an interrupt, the run says so too
		}
		for _, id := range batch {
			if stopped(ctx) {
				return nil // no new replay starts; the run says it was stopped
			}
			select {
			case ids <- id:
			case <-ctx.Done():
				return nil
			}
			after = id
		}
		if len(batch) < ReplayWalkBatch {
			return nil
		}
	}
}

// newTraceID makes the trace ID an operator's replay records on the
// receipt: it tells its replays apart from the storefront's deliveries.
func newTraceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// stopped tells a run whose context ended.
func stopped(ctx context.Context) bool { return ctx.Err() != nil }
