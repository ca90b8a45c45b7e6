package billing

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
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

// Handle runs billing once. Each step is its own transaction, each batch
// of periods finalized in one of its own: a run interrupted halfway has
// kept what it did, and the next run does the rest.
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
	fees, err := h.d.accrueStorage(ctx, nil, h.d.yesterday(now))
	addFees(res.Charges, fees)
	if err == nil {
		err = h.finalizeAll(ctx, &res, now)
	}
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
	h.d.observer().ObserveInvoices(string(invoicing.InvoiceCollecting), len(res.Collected))
	return res, nil
}

// finalizeAll finalizes every period due, round after round: the periods
// a round finalizes open the next ones, which are due in turn when runs
// were skipped for months.
func (h *RunBillingHandler) finalizeAll(ctx context.Context, res *RunResult, now time.Time) error {
	size := h.d.Settings.FinalizeBatch
	if size <= 0 {
		size = DefaultFinalizeBatch
	}
	for range maxRounds {
		due, err := h.d.Repos.BillingPeriods.Due(ctx, now.Add(-h.d.Settings.Grace))
		if err != nil || len(due) == 0 {
			return err
		}
		finalized := 0
		for batch := range slices.Chunk(due, size) {
			fs, fees, err := h.finalizeBatch(ctx, batch, now)
			addFees(res.Charges, fees)
			if err != nil {
				return err
			}
			finalized += len(fs)
			for _, f := range fs {
				res.Finalized = append(res.Finalized, f)
				if f.Invoice != nil {
					h.d.observer().ObserveInvoices(string(f.Invoice.Status()), 1)
				}
			}
		}
		if finalized == 0 { // every period due was finalized by another run meanwhile
			return nil
		}
	}
	return nil
}

// DefaultFinalizeBatch is how many periods one transaction finalizes:
// fewer commits, while the facts of those organizations wait for it.
const DefaultFinalizeBatch = 100

// finalizeBatch finalizes, in one transaction and in the order given, each
// period of batch that is still its organization's open period and due
// (another run may have finalized it meanwhile: it is left out), issued
// now. Its organizations' billing is locked first (LockOpenMany), so no
// fact of theirs commits between the storage accrued here and the sums.
func (h *RunBillingHandler) finalizeBatch(ctx context.Context, batch []ports.OpenPeriod, now time.Time) (out []ports.FinalizedInvoice, fees map[billing.Fee]int, err error) {
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
		var due []ports.OpenPeriod
		for _, p := range batch {
			locked, ok := byOrg[p.OrganizationID]
			if !ok || !locked.Period.Start.Equal(p.Period.Start) || !locked.Period.Due(now, h.d.Settings.Grace) {
				continue // finalized meanwhile by another run
			}
			cs = append(cs, closing{period: locked, end: locked.Period.End, at: now})
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
		return nil, nil, err
	}
	return out, fees, nil
}
