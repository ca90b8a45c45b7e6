// Package billing holds the use cases of billing (docs/billing.md): setting
// rate cards, running billing (accruing what is due, finalizing periods
// past their grace, moving overdue invoices to collecting), closing a
// period early, previewing the open invoice, recording an operator's
// charge and changing an invoice's status. Transactions are visible here;
// exactly-once comes from the database's keys and row locks.
package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
)

// Defaults of the settings (BILLING_GRACE, BILLING_TERMS,
// BILLING_COLLECTIONS_AFTER, BILLING_INTERVAL).
const (
	DefaultGrace            = 24 * time.Hour
	DefaultTerms            = 720 * time.Hour
	DefaultCollectionsAfter = 720 * time.Hour
	DefaultInterval         = 15 * time.Minute
)

// Settings are billing's configuration.
type Settings struct {
	Calendar         billing.Calendar // BILLING_TIMEZONE
	Grace            time.Duration    // after a period's end, before its invoice is finalized
	Terms            time.Duration    // from finalization to the due date
	CollectionsAfter time.Duration    // after the due date, before an unpaid invoice is collecting
	// FinalizeBatch is how many periods one transaction of a run
	// finalizes; 0 is DefaultFinalizeBatch.
	FinalizeBatch int
}

// Observer counts what billing did: fulfillment_billing_charges_total and
// fulfillment_billing_invoices_total.
type Observer interface {
	ObserveCharges(fee string, n int)
	ObserveInvoices(status string, n int)
}

// NopObserver counts nothing (the CLI: its process ends with the run).
type NopObserver struct{}

// ObserveCharges implements Observer.
func (NopObserver) ObserveCharges(string, int) {}

// ObserveInvoices implements Observer.
func (NopObserver) ObserveInvoices(string, int) {}

// Deps are what the use cases need.
type Deps struct {
	UnitOfWork ports.UnitOfWork
	Repos      ports.Repositories // on the pool
	Clock      ports.Clock
	IDs        ports.IDGenerator
	Settings   Settings
	Observer   Observer
}

func (d Deps) observer() Observer {
	if d.Observer == nil {
		return NopObserver{}
	}
	return d.Observer
}

func (d Deps) observeCharges(fees map[billing.Fee]int) {
	for f, n := range fees {
		d.observer().ObserveCharges(string(f), n)
	}
}

func addFees(into, from map[billing.Fee]int) {
	for f, n := range from {
		into[f] += n
	}
}

// yesterday is the last day whose storage can be billed at now: the last
// one that has ended.
func (d Deps) yesterday(now time.Time) billing.Date {
	return d.Settings.Calendar.Day(now).AddDays(-1)
}

// accrueStorage accrues the storage of every organization through the
// day, in a transaction of its own.
func (d Deps) accrueStorage(ctx context.Context, through billing.Date) (map[billing.Fee]int, error) {
	var fees map[billing.Fee]int
	err := d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		var err error
		fees, err = r.Charges.AccrueStorage(ctx, "", through)
		return err
	})
	if err != nil {
		return fees, fmt.Errorf("accrue storage: %w", err)
	}
	return fees, nil
}

// storageBilledBy is the last day whose storage the periods of due bill,
// yesterday at most; false when none is due.
func (d Deps) storageBilledBy(due []ports.OpenPeriod, yesterday billing.Date) (billing.Date, bool) {
	if len(due) == 0 {
		return billing.Date{}, false
	}
	last := d.Settings.Calendar.Day(due[0].Period.End.Add(-time.Nanosecond))
	for _, p := range due[1:] {
		if day := d.Settings.Calendar.Day(p.Period.End.Add(-time.Nanosecond)); last.Before(day) {
			last = day
		}
	}
	if yesterday.Before(last) {
		return yesterday, true
	}
	return last, true
}

// caughtUpThrough is the catch-up's watermark at now: the facts older than
// BILLING_GRACE are not looked at again (their own paths accrue them; the
// catch-up is the safety net of the last grace).
func (d Deps) caughtUpThrough(now time.Time) time.Time {
	return now.Add(-d.Settings.Grace)
}

// accrue accrues the organization's facts without a charge ("": every
// organization's) and its storage up to yesterday. It takes the catch-up's
// advisory lock and holds the open periods it accrues into FOR SHARE: a use
// case that also locks a period's row (FOR UPDATE) accrues first, so that
// every transaction takes these locks in the same order.
func (d Deps) accrue(ctx context.Context, r ports.Repositories, organizationID string, now time.Time) (map[billing.Fee]int, error) {
	fees, err := r.Charges.CatchUp(ctx, organizationID, d.caughtUpThrough(now))
	if err != nil {
		return nil, fmt.Errorf("accrue facts: %w", err)
	}
	storage, err := r.Charges.AccrueStorage(ctx, organizationID, d.yesterday(now))
	if err != nil {
		return nil, fmt.Errorf("accrue storage: %w", err)
	}
	addFees(fees, storage)
	return fees, nil
}

// closing is an open period locked FOR UPDATE to finalize: ended at end,
// its invoice finalized at at.
type closing struct {
	period  ports.OpenPeriod
	end, at time.Time
}

// finalize ends the periods of cs in r's transaction and writes their
// invoices, in cs's order, a few statements for them all: their sums, the
// minimums of their cards, and Finalize. A period that cannot be
// finalized (its credits exceed its charges) stays open, the others are
// finalized, and refused says which and why: one client's problem does
// not hold up every other client's invoice. The invoices take their keys
// from the year's counter, or, with a turn (a run's batch), as the turn
// plans and claims them.
func (d Deps) finalize(ctx context.Context, r ports.Repositories, cs []closing, turn *keyTurn) (out []ports.FinalizedInvoice, refused, err error) {
	windows := make([]ports.BillingWindow, len(cs))
	for i, c := range cs {
		windows[i] = ports.BillingWindow{OrganizationID: c.period.OrganizationID, Start: c.period.Period.Start, End: c.end}
	}
	sums, err := r.Charges.Sums(ctx, windows)
	if err != nil {
		return nil, nil, err
	}
	minimums, err := r.RateCards.Minimums(ctx, windows)
	if err != nil {
		return nil, nil, err
	}
	fs := make([]ports.Finalization, 0, len(cs))
	for i, c := range cs {
		inv, err := d.invoiceOf(c, sums[i], minimums[i])
		if err == nil && inv.TotalAmount < 0 {
			err = fmt.Errorf("%w: %q of %s would total %s: its credits exceed its charges",
				domain.ErrInvalidState, inv.Name, c.period.OrganizationID, billing.Dollars(inv.TotalAmount))
		}
		if err != nil {
			refused = errors.Join(refused, fmt.Errorf("finalize the period of %s from %s: %w", c.period.OrganizationID,
				c.period.Period.Start.Format(time.RFC3339), err))
			continue
		}
		f := ports.Finalization{Period: c.period, End: c.end, NextEnd: d.Settings.Calendar.NextMonthStart(c.end),
			NextInvoiceID: d.IDs.NewID("inv")}
		if len(inv.Lines) > 0 { // a period that bills nothing makes no invoice
			f.Invoice = &inv
		}
		fs = append(fs, f)
	}
	if len(fs) == 0 {
		return nil, refused, nil
	}
	plan, err := turn.plan(ctx, r, fs)
	if err != nil {
		return nil, nil, err
	}
	if out, err = r.BillingPeriods.Finalize(ctx, fs, plan); err != nil {
		return nil, nil, err
	}
	if err := turn.claim(ctx, r, plan); err != nil {
		return nil, nil, err
	}
	for i, f := range out {
		if f.Invoice == nil {
			continue
		}
		if fs[i].Invoice.Lines[len(fs[i].Invoice.Lines)-1].Title == billing.Titles[billing.FeeMinimum] {
			d.observer().ObserveCharges(string(billing.FeeMinimum), 1)
		}
		// invoice.finalized (docs/events.md): the invoice as stored.
		if err := r.Events.Record(ctx, ports.InvoiceEvent(ports.EventInvoiceFinalized, f.Invoice, fs[i].Invoice.FinalizedAt)); err != nil {
			return nil, nil, err
		}
	}
	return out, refused, nil
}

// invoiceOf is the invoice a period's sums make, finalized at c.at: its
// lines (none when it bills nothing) and total (below 0 when its credits
// exceed its charges), name, due date and notes.
func (d Deps) invoiceOf(c closing, sums []billing.Sum, minimum int64) (ports.NewInvoice, error) {
	name := d.Settings.Calendar.Name(billing.Period{Start: c.period.Period.Start, End: c.end})
	lines, total, err := billing.Lines(sums, minimum, name)
	if err != nil {
		return ports.NewInvoice{}, err
	}
	due := c.at.Add(d.Settings.Terms)
	return ports.NewInvoice{ID: c.period.InvoiceID, OrganizationID: c.period.OrganizationID, Name: "Fulfillment, " + name,
		Notes: billing.TermsNote(d.Settings.Terms, due), DueDate: due, FinalizedAt: c.at, Lines: lines, TotalAmount: total}, nil
}
