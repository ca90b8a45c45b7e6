package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
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
	Finalized []billingports.FinalizedInvoice // in finalization order, periods that made no invoice included
	Collected []string                        // invoice IDs moved to collecting
	// Failed are the periods due that could not be finalized: reported and
	// skipped, every other one finalized all the same.
	Failed []PeriodFailure
}

// PeriodFailure is a period a run could not finalize, and why.
type PeriodFailure struct {
	Period billingports.OpenPeriod
	Err    error
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

// Handle runs billing once. Each step is its own transaction, each batch
// of organizations in one of its own: a run interrupted halfway has kept
// what it did, and the next run does the rest. No transaction of a run
// waits for an organization's billing lock while it holds another's
// (docs/billing.md, "One organization never holds up another"); a period
// that cannot be finalized is reported (the error names it) and skipped,
// after every other one was finalized and the overdue invoices collected.
func (h *RunBillingHandler) Handle(ctx context.Context, _ RunBilling) (RunResult, error) {
	now := h.d.Clock.Now()
	res := RunResult{Charges: map[billing.Fee]int{}}
	err := h.accrueAll(ctx, &res, now)
	if err == nil {
		err = h.finalizeAll(ctx, &res, now)
	}
	h.d.observeCharges(res.Charges)
	if err != nil {
		return res, err
	}

	err = h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
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
	h.d.observer().ObserveInvoices(string(invoicing.InvoiceCollecting), len(res.Collected))
	return res, failedError(res.Failed)
}

// failedError names the periods that could not be finalized, and why, in
// one line (nil: none).
func failedError(failed []PeriodFailure) error {
	if len(failed) == 0 {
		return nil
	}
	names := make([]string, len(failed))
	for i, f := range failed {
		names[i] = f.Period.OrganizationID
		if !f.Period.Period.Start.IsZero() {
			names[i] += " from " + f.Period.Period.Start.UTC().Format(time.RFC3339)
		}
		names[i] += " (" + strings.ReplaceAll(f.Err.Error(), "\n", " ") + ")"
	}
	return fmt.Errorf("could not finalize the period of %s; every other period due was finalized", strings.Join(names, "; "))
}

// batchSize is how many organizations one transaction of a run handles.
func (h *RunBillingHandler) batchSize() int {
	if h.d.Settings.FinalizeBatch > 0 {
		return h.d.Settings.FinalizeBatch
	}
	return DefaultFinalizeBatch
}

// accrueAll accrues, for every organization with an open period, its facts
// without a charge (the catch-up) and its storage up to yesterday, a batch
// of organizations per transaction, each under the organization's own
// billing lock taken only if it is free: an organization busy now (a
// close, a preview, a card, another run) is left to the next run, and its
// period's storage to its finalization, which accrues it.
func (h *RunBillingHandler) accrueAll(ctx context.Context, res *RunResult, now time.Time) error {
	orgs, err := h.d.Repos.BillingPeriods.Billed(ctx)
	if err != nil {
		return fmt.Errorf("accrue: %w", err)
	}
	for batch := range slices.Chunk(orgs, h.batchSize()) {
		if err := h.accrueBatch(ctx, res, batch, now); err == nil || ctx.Err() != nil {
			if err != nil {
				return fmt.Errorf("accrue: %w", err)
			}
			continue
		}
		// One organization's failure must not take its neighbours with it.
		for _, org := range batch {
			if err := h.accrueBatch(ctx, res, []string{org}, now); err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("accrue: %w", err)
				}
				res.Failed = append(res.Failed, PeriodFailure{Period: billingports.OpenPeriod{OrganizationID: org}, Err: fmt.Errorf("accrue: %w", err)})
			}
		}
	}
	return nil
}

// accrueBatch is one transaction of accrueAll.
func (h *RunBillingHandler) accrueBatch(ctx context.Context, res *RunResult, orgs []string, now time.Time) error {
	got := map[billing.Fee]int{}
	err := h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
		clear(got)
		locked, err := r.BillingPeriods.TryLockBilling(ctx, orgs)
		if err != nil || len(locked) == 0 {
			return err
		}
		fees, err := r.Charges.CatchUp(ctx, locked, h.d.caughtUpThrough(now))
		if err != nil {
			return fmt.Errorf("accrue facts: %w", err)
		}
		addFees(got, fees)
		storage, err := r.Charges.AccrueStorage(ctx, locked, h.d.yesterday(now))
		if err != nil {
			return fmt.Errorf("accrue storage: %w", err)
		}
		addFees(got, storage)
		return nil
	})
	if err == nil {
		addFees(res.Charges, got)
	}
	return err
}

// finalizeAll finalizes every period due, round after round: the periods
// a round finalizes open the next ones, which are due in turn when runs
// were skipped for months. A period that failed is not tried again by
// this run.
func (h *RunBillingHandler) finalizeAll(ctx context.Context, res *RunResult, now time.Time) error {
	failed := map[string]bool{}
	for range maxRounds {
		due, err := h.d.Repos.BillingPeriods.Due(ctx, now.Add(-h.d.Settings.Grace))
		if err != nil {
			return err
		}
		due = slices.DeleteFunc(due, func(p billingports.OpenPeriod) bool { return failed[p.OrganizationID] })
		if len(due) == 0 {
			return nil
		}
		finalized := 0
		var left []billingports.OpenPeriod // busy in their batch, or failing with it
		for batch := range slices.Chunk(due, h.batchSize()) {
			fs, fees, skipped, err := h.finalizeBatch(ctx, batch, now, false)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				// One period's failure must not take its neighbours with it:
				// each is tried again alone.
				left = append(left, batch...)
				continue
			}
			addFees(res.Charges, fees)
			finalized += h.record(res, fs)
			left = append(left, skipped...)
		}
		for _, p := range left { // each alone, waiting for its own organization only
			fs, fees, _, err := h.finalizeBatch(ctx, []billingports.OpenPeriod{p}, now, true)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				failed[p.OrganizationID] = true
				res.Failed = append(res.Failed, PeriodFailure{Period: p, Err: err})
				continue
			}
			addFees(res.Charges, fees)
			finalized += h.record(res, fs)
		}
		if finalized == 0 { // every period due was finalized by another run meanwhile, or failed
			return nil
		}
	}
	return nil
}

// record adds the periods finalized to the run's result.
func (h *RunBillingHandler) record(res *RunResult, fs []billingports.FinalizedInvoice) int {
	for _, f := range fs {
		res.Finalized = append(res.Finalized, f)
		if f.Invoice != nil {
			h.d.observer().ObserveInvoices(string(f.Invoice.Status()), 1)
		}
	}
	return len(fs)
}

// DefaultFinalizeBatch is how many periods one transaction finalizes:
// fewer commits, while the facts of those organizations wait for it.
const DefaultFinalizeBatch = 100

// finalizeBatch finalizes, in one transaction and in the order given, each
// period of batch that is still its organization's open period and due
// (another run may have finalized it meanwhile: it is left out). Its
// organizations' billing locks are taken first, only those free now
// (LockOpenMany: the periods of busy ones come back in skipped, for a
// transaction of their own); alone, the one organization's lock is waited
// for (LockOpen). No fact of theirs commits between the storage accrued
// here and the sums.
func (h *RunBillingHandler) finalizeBatch(ctx context.Context, batch []billingports.OpenPeriod, now time.Time, alone bool) (out []billingports.FinalizedInvoice, fees map[billing.Fee]int, skipped []billingports.OpenPeriod, err error) {
	err = h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
		skipped = nil
		var open []billingports.OpenPeriod
		if alone {
			p, err := r.BillingPeriods.LockOpen(ctx, batch[0].OrganizationID)
			if errors.Is(err, domain.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			open = []billingports.OpenPeriod{p}
		} else {
			ids := make([]string, len(batch))
			for i, p := range batch {
				ids[i] = p.OrganizationID
			}
			var err error
			if open, err = r.BillingPeriods.LockOpenMany(ctx, ids); err != nil {
				return err
			}
			for _, p := range batch {
				if !slices.ContainsFunc(open, func(o billingports.OpenPeriod) bool { return o.OrganizationID == p.OrganizationID }) {
					skipped = append(skipped, p) // busy now (or finalized meanwhile: the next try finds out)
				}
			}
		}
		byOrg := make(map[string]billingports.OpenPeriod, len(open))
		for _, p := range open {
			byOrg[p.OrganizationID] = p
		}
		cs := make([]closing, 0, len(batch))
		var due []billingports.OpenPeriod
		for _, p := range batch {
			locked, ok := byOrg[p.OrganizationID]
			if !ok || !locked.Period.Start.Equal(p.Period.Start) || !locked.Period.Due(now, h.d.Settings.Grace) {
				continue // finalized meanwhile by another run, or busy (skipped)
			}
			cs = append(cs, closing{period: locked, end: locked.Period.End})
			due = append(due, locked)
		}
		if through, ok := h.d.storageBilledBy(due, h.d.yesterday(now)); ok {
			orgs := make([]string, len(due))
			for i, p := range due {
				orgs[i] = p.OrganizationID
			}
			if fees, err = r.Charges.AccrueStorage(ctx, orgs, through); err != nil {
				return fmt.Errorf("accrue storage: %w", err)
			}
		}
		out, err = h.d.finalize(ctx, r, cs)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return out, fees, skipped, nil
}
