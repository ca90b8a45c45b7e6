package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
)

// RunBilling does everything due (`fulfillment billing run`, and `serve`
// every BILLING_INTERVAL): accrue the facts without a charge and the
// storage days up to yesterday, finalize the periods past their grace,
// move the invoices overdue by BILLING_COLLECTIONS_AFTER to collecting.
// Any number of runs at once give what one run gives.
type RunBilling struct{}

// RunResult is what a run did.
type RunResult struct {
	Charges   map[billing.Fee]int
	Finalized []ports.FinalizedInvoice // in finalization order, periods that made no invoice included
	Collected []string                 // invoice IDs moved to collecting
}

// Invoices counts the finalized periods that made an invoice.
func (r RunResult) Invoices() int {
	n := 0
	for _, f := range r.Finalized {
		if f.Key != "" {
			n++
		}
	}
	return n
}

// RunBillingHandler answers RunBilling.
type RunBillingHandler struct{ d Deps }

// NewRunBillingHandler builds the handler.
func NewRunBillingHandler(d Deps) *RunBillingHandler { return &RunBillingHandler{d: d} }

// maxRounds bounds the finalizations of one run: each round finalizes every
// period due, and the next periods become due in turn when runs were
// skipped for months. 1,200 rounds are a century of months.
const maxRounds = 1200

// Handle runs billing once. Each step is its own transaction, each period
// finalized in one of its own: a run interrupted halfway has kept what it
// did, and the next run does the rest.
func (h *RunBillingHandler) Handle(ctx context.Context, _ RunBilling) (RunResult, error) {
	now := h.d.Clock.Now()
	res := RunResult{Charges: map[billing.Fee]int{}}
	err := h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		fees, err := r.Charges.CatchUp(ctx, "", h.d.caughtUpThrough(now))
		addFees(res.Charges, fees)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("accrue facts: %w", err)
	}

	refused, err := h.finalizeAll(ctx, &res, now)
	h.d.observeCharges(res.Charges)
	if err != nil {
		return res, err
	}

	err = h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		collected, err := r.BillingPeriods.Collect(ctx, now, h.d.Settings.CollectionsAfter)
		if err != nil {
			return err
		}
		res.Collected = res.Collected[:0]
		for _, ref := range collected {
			if err := recordStatusChanged(ctx, r, ref, now); err != nil {
				return err
			}
			res.Collected = append(res.Collected, ref.ID)
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("collect overdue invoices: %w", err)
	}
	h.d.observer().ObserveInvoices(string(domain.InvoiceCollecting), len(res.Collected))
	if len(refused) > 0 {
		return res, fmt.Errorf("periods left open: %w", errors.Join(refused...))
	}
	return res, nil
}

// finalizeAll accrues storage and finalizes every period due, round after
// round, and returns the refusals of the last round: a refused period is
// tried again in every round, and the last round tried every period still
// due. The days of storage that the periods due bill are accrued before
// they are finalized; the days after them (yesterday, on a punctual run)
// in a transaction of their own beside the finalization, which never reads
// them. A round that finds later periods due (runs skipped for months)
// accrues their days first in turn: if the transaction beside holds them,
// it waits for it on their watermarks' rows.
func (h *RunBillingHandler) finalizeAll(ctx context.Context, res *RunResult, now time.Time) (refused []error, err error) {
	yesterday := h.d.yesterday(now)
	var (
		wg        sync.WaitGroup
		laterFees map[billing.Fee]int
		laterErr  error
	)
	defer func() {
		wg.Wait()
		addFees(res.Charges, laterFees)
		err = errors.Join(err, laterErr)
	}()
	for round := range maxRounds {
		due, err := h.d.Repos.BillingPeriods.Due(ctx, now.Add(-h.d.Settings.Grace))
		if err != nil {
			return nil, err
		}
		if through, ok := h.d.storageBilledBy(due, yesterday); ok {
			if err := h.accrueStorage(ctx, res, through); err != nil {
				return nil, err
			}
		}
		if round == 0 {
			wg.Go(func() { laterFees, laterErr = h.d.accrueStorage(ctx, yesterday) })
		}
		fs, why, err := h.finalizeRound(ctx, due, now)
		h.record(res, fs)
		if err != nil || len(fs) == 0 {
			return why, err
		}
		refused = why
	}
	return refused, nil
}

// accrueStorage accrues the storage of every organization through the
// day into the run's result.
func (h *RunBillingHandler) accrueStorage(ctx context.Context, res *RunResult, through billing.Date) error {
	fees, err := h.d.accrueStorage(ctx, through)
	addFees(res.Charges, fees)
	return err
}

// record adds the finalized periods to the run's result.
func (h *RunBillingHandler) record(res *RunResult, fs []ports.FinalizedInvoice) {
	for _, f := range fs {
		res.Finalized = append(res.Finalized, f)
		if f.Key != "" {
			h.d.observer().ObserveInvoices(string(domain.InvoiceUnpaid), 1)
		}
	}
}

// finalizeRound finalizes the periods due in batches, finalizeWorkers
// transactions at once, and returns what they finalized in key order
// (the order of their commits: each batch takes its keys under the year's
// counter lock) and the refusals. A batch that fails cancels the others;
// those committed before stay finalized.
func (h *RunBillingHandler) finalizeRound(ctx context.Context, due []ports.OpenPeriod, now time.Time) ([]ports.FinalizedInvoice, []error, error) {
	size := h.d.Settings.FinalizeBatch
	if size <= 0 {
		size = DefaultFinalizeBatch
	}
	batches := slices.Collect(slices.Chunk(due, size))
	done := make([][]ports.FinalizedInvoice, len(batches))
	why := make([]error, len(batches))
	turns := newKeyTurns(len(batches))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(finalizeWorkers)
	for i, batch := range batches {
		g.Go(func() (err error) {
			done[i], why[i], err = h.finalizeDue(gctx, batch, now, turns[i])
			return err
		})
	}
	err := g.Wait()
	out := slices.Concat(done...)
	slices.SortStableFunc(out, func(a, b ports.FinalizedInvoice) int { return strings.Compare(a.Key, b.Key) })
	var refused []error
	for _, w := range why {
		if w != nil {
			refused = append(refused, w)
		}
	}
	return out, refused, err
}

// DefaultFinalizeBatch is how many periods one transaction finalizes:
// fewer commits, while a `billing close` waits for the year's counter at
// most one batch long. finalizeWorkers is how many batches are finalized
// at once, each writing its invoices with the keys its turn planned
// (keyTurn; docs/billing.md, "Speed").
const (
	DefaultFinalizeBatch = 100
	finalizeWorkers      = 2
)

// finalizeDue finalizes, in one transaction and in the order given, each
// period of batch that is still its organization's open period (another
// run may have finalized it meanwhile: it is left out), dated at the end
// of its grace, so that a late run writes what a punctual one would have.
// The periods are locked first, all at once: the year's counter, which
// the finalization takes, is then never held while waiting for a period.
// A period refused (its credits exceed its charges) stays open; the
// others are committed, and the refusal returned.
//
// The batch numbers its invoices in its turn (keyTurn): when its claim
// fails, it is finalized again, taking its keys from the counter.
func (h *RunBillingHandler) finalizeDue(ctx context.Context, batch []ports.OpenPeriod, now time.Time, turn *keyTurn) (out []ports.FinalizedInvoice, refused, err error) {
	if err := turn.ready(ctx); err != nil {
		turn.end(false)
		return nil, nil, err
	}
	out, refused, err = h.finalizeOnce(ctx, batch, now, turn)
	turn.end(err == nil)
	if errors.Is(err, errKeysTaken) {
		return h.finalizeOnce(ctx, batch, now, nil)
	}
	return out, refused, err
}

// finalizeOnce is one transaction of finalizeDue.
func (h *RunBillingHandler) finalizeOnce(ctx context.Context, batch []ports.OpenPeriod, now time.Time, turn *keyTurn) (out []ports.FinalizedInvoice, refused, err error) {
	err = h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		ids := make([]string, len(batch))
		for i, p := range batch {
			ids[i] = p.OrganizationID
		}
		open, err := r.BillingPeriods.LockOpenMany(ctx, ids)
		if err != nil {
			return err
		}
		byOrg := make(map[string]ports.OpenPeriod, len(open))
		for _, p := range open {
			byOrg[p.OrganizationID] = p
		}
		cs := make([]closing, 0, len(batch))
		for _, p := range batch {
			locked, ok := byOrg[p.OrganizationID]
			if !ok || !locked.Period.Start.Equal(p.Period.Start) || !locked.Period.Due(now, h.d.Settings.Grace) {
				continue // finalized meanwhile by another run
			}
			cs = append(cs, closing{period: locked, end: locked.Period.End, at: locked.Period.End.Add(h.d.Settings.Grace)})
		}
		out, refused, err = h.d.finalize(ctx, r, cs, turn)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return out, refused, nil
}
