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

// finalize ends the open period p at end and writes its invoice, finalized
// at `at`, in r's transaction (p locked FOR UPDATE by the caller).
func (d Deps) finalize(ctx context.Context, r ports.Repositories, p ports.OpenPeriod, end, at time.Time) (ports.FinalizedInvoice, error) {
	cal := d.Settings.Calendar
	sums, err := r.Charges.Bill(ctx, p.OrganizationID, p.InvoiceID, end)
	if err != nil {
		return ports.FinalizedInvoice{}, err
	}
	var minimum int64
	card, err := r.RateCards.InForce(ctx, p.OrganizationID, end.Add(-time.Microsecond))
	switch {
	case err == nil:
		minimum = card.Fee(billing.MinimumMonthly)
	case !errors.Is(err, domain.ErrNotFound):
		return ports.FinalizedInvoice{}, err
	}
	name := cal.Name(billing.Period{Start: p.Period.Start, End: end})
	lines, total, err := billing.Lines(sums, minimum, name)
	if err != nil {
		return ports.FinalizedInvoice{}, err
	}
	if total < 0 {
		return ports.FinalizedInvoice{}, fmt.Errorf("%w: the period %s of %s totals %s: its credits exceed its charges",
			domain.ErrInvalidState, name, p.OrganizationID, billing.Dollars(total))
	}
	var inv *ports.NewInvoice
	if len(lines) > 0 {
		due := at.Add(d.Settings.Terms)
		inv = &ports.NewInvoice{ID: p.InvoiceID, OrganizationID: p.OrganizationID, Name: "Fulfillment, " + name,
			Notes: billing.TermsNote(d.Settings.Terms, due), DueDate: due, FinalizedAt: at, Lines: lines, TotalAmount: total}
		for _, l := range lines {
			if l.Title == billing.Titles[billing.FeeMinimum] {
				d.observer().ObserveCharges(string(billing.FeeMinimum), 1)
			}
		}
	}
	fi, err := r.BillingPeriods.Finalize(ctx, p, end, inv, cal.NextMonthStart(end), d.IDs.NewID("inv"))
	if err != nil || inv == nil {
		return fi, err
	}
	// invoice.finalized (docs/events.md): the invoice as the API shows it,
	// read in this transaction, which holds the period's lock.
	finalized, err := r.Invoices.Get(ctx, inv.OrganizationID, inv.ID)
	if err != nil {
		return fi, fmt.Errorf("read finalized invoice %s: %w", inv.ID, err)
	}
	return fi, r.Events.Record(ctx, ports.InvoiceEvent(ports.EventInvoiceFinalized, finalized, at))
}
