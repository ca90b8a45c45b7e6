// Package billing holds the use cases of billing (docs/billing.md): setting
// rate cards, running billing (accruing what is due, finalizing periods
// past their grace, moving overdue invoices to collecting), closing a
// period early, previewing the open invoice, recording an operator's
// charge and changing an invoice's status. Transactions are visible here;
// exactly-once comes from the database's keys and row locks.
package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
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
	UnitOfWork ports.UnitOfWork[billingports.Repositories]
	Repos      billingports.Repositories // on the pool
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

// auditor writes the audit records of the operators' billing actions.
func (d Deps) auditor() *application.Auditor[billingports.Repositories] {
	return application.NewAuditor(d.UnitOfWork, d.Clock, d.IDs)
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

// storageBilledBy is the last day whose storage the periods of due bill,
// yesterday at most; false when none is due.
func (d Deps) storageBilledBy(due []billingports.OpenPeriod, yesterday billing.Date) (billing.Date, bool) {
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

// accrue accrues the organization's facts without a charge and its
// storage up to yesterday, under the organization's billing lock taken
// exclusively (docs/billing.md, "One lock order"): the use cases that
// finalize or reprice call it first.
func (d Deps) accrue(ctx context.Context, r billingports.Repositories, organizationID string, now time.Time) (map[billing.Fee]int, error) {
	if err := r.BillingPeriods.LockBilling(ctx, []string{organizationID}); err != nil {
		return nil, err
	}
	fees, err := r.Charges.CatchUp(ctx, []string{organizationID}, d.caughtUpThrough(now))
	if err != nil {
		return nil, fmt.Errorf("accrue facts: %w", err)
	}
	storage, err := r.Charges.AccrueStorage(ctx, []string{organizationID}, d.yesterday(now))
	if err != nil {
		return nil, fmt.Errorf("accrue storage: %w", err)
	}
	addFees(fees, storage)
	return fees, nil
}

// closing is an open period locked FOR UPDATE to finalize, ended at end.
type closing struct {
	period billingports.OpenPeriod
	end    time.Time
}

// finalize ends the periods of cs in r's transaction and writes their
// invoices, in cs's order, a few statements for them all: their sums, the
// minimums of their cards, the credits their organizations carry, and
// Finalize, which takes the keys from the year's counter.
func (d Deps) finalize(ctx context.Context, r billingports.Repositories, cs []closing) ([]billingports.FinalizedInvoice, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	windows := make([]billingports.Window, len(cs))
	for i, c := range cs {
		windows[i] = billingports.Window{OrganizationID: c.period.OrganizationID, Start: c.period.Period.Start, End: c.end}
	}
	sums, err := r.Charges.Sums(ctx, windows)
	if err != nil {
		return nil, err
	}
	minimums, err := r.RateCards.Minimums(ctx, windows)
	if err != nil {
		return nil, err
	}
	credits, err := r.BillingPeriods.Credits(ctx, windows)
	if err != nil {
		return nil, err
	}
	at, err := d.keyTime(ctx, r)
	if err != nil {
		return nil, err
	}
	fs := make([]billingports.Finalization, len(cs))
	for i, c := range cs {
		inv, carried, err := d.invoiceOf(c, at, sums[i], minimums[i], credits[i])
		if err != nil {
			return nil, fmt.Errorf("finalize the period of %s from %s: %w", c.period.OrganizationID,
				c.period.Period.Start.Format(time.RFC3339), err)
		}
		fs[i] = billingports.Finalization{Period: c.period, End: c.end, NextEnd: d.Settings.Calendar.NextMonthStart(c.end),
			NextInvoiceID: d.IDs.NewID("inv"), At: at, CreditForward: credits[i]}
		if len(inv.Lines) > 0 { // a period that bills nothing makes no invoice, and keeps the credit for the next
			fs[i].Invoice, fs[i].CreditForward = &inv, carried
		}
	}
	out, err := r.BillingPeriods.Finalize(ctx, fs)
	if err != nil {
		return nil, err
	}
	for i, f := range out {
		if f.Invoice == nil {
			continue
		}
		for _, l := range fs[i].Invoice.Lines {
			if l.Fee == billing.FeeMinimum || l.Fee == billing.FeeCreditForward {
				d.observer().ObserveCharges(string(l.Fee), 1)
			}
		}
		// invoice.finalized (docs/events.md): the invoice as stored.
		if err := r.Events.Record(ctx, invoicingports.InvoiceEvent(eventsports.EventInvoiceFinalized, f.Invoice, fs[i].At)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keyTime is the finalization's time, read once the counter of its year's
// keys is held (to the commit): an invoice numbered after another is
// never dated before it (docs/billing.md, "Numbering"). A year that turned
// meanwhile takes the next year's counter too.
func (d Deps) keyTime(ctx context.Context, r billingports.Repositories) (time.Time, error) {
	year := d.Clock.Now().UTC().Year()
	for {
		if err := r.BillingPeriods.LockKeys(ctx, year); err != nil {
			return time.Time{}, fmt.Errorf("lock the keys of %d: %w", year, err)
		}
		at := d.Clock.Now()
		if at.UTC().Year() <= year {
			return at, nil
		}
		year = at.UTC().Year()
	}
}

// invoiceOf is the invoice a period's sums make, issued at at: its lines
// (none when it bills nothing), total (0 or more), name, due date and
// notes, and the credit it carries forward.
func (d Deps) invoiceOf(c closing, at time.Time, sums []billing.Sum, minimum, broughtForward int64) (billingports.NewInvoice, int64, error) {
	name := d.Settings.Calendar.Name(billing.Period{Start: c.period.Period.Start, End: c.end})
	lines, totals, err := billing.Lines(sums, minimum, broughtForward, name)
	if err != nil {
		return billingports.NewInvoice{}, 0, err
	}
	due := at.Add(d.Settings.Terms)
	return billingports.NewInvoice{ID: c.period.InvoiceID, OrganizationID: c.period.OrganizationID, Name: "Fulfillment, " + name,
		Notes: billing.TermsNote(d.Settings.Terms, due), DueDate: due, FinalizedAt: at, Lines: lines,
		TotalAmount: totals.Total}, totals.Carried, nil
}
