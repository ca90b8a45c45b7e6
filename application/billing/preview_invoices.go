package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// PreviewInvoices shows an organization's open invoice as the API would
// show it once finalized (`fulfillment invoices preview`): accumulating
// while its period runs, draft after its end until its grace ends.
type PreviewInvoices struct {
	OrganizationID string
	// Charges, when set, is handed every charge of the open invoice, in
	// occurredAt order then ID, as GET /v0/invoices/{id}/charges will list
	// them once it is finalized (`invoices preview --charges`).
	Charges func(invoicingports.InvoiceCharge) error
	// ChargesTake, above 0, hands Charges at most that many charges of
	// each open invoice, the first in that order (a page that shows the
	// first few need not read a month's thousands).
	ChargesTake int
}

// PreviewInvoicesHandler answers PreviewInvoices.
type PreviewInvoicesHandler struct{ d Deps }

// NewPreviewInvoicesHandler builds the handler.
func NewPreviewInvoicesHandler(d Deps) *PreviewInvoicesHandler { return &PreviewInvoicesHandler{d: d} }

// previewed is an open period and what its invoice adds up to so far.
type previewed struct {
	period          billingports.OpenPeriod
	sums            []billing.Sum
	minimum, credit int64
}

// Handle accrues what is due to the organization (as a run would), then
// reads its open invoices: the open period's — accumulating while it runs,
// draft in its grace — and, once that period has ended, the next month's,
// accumulating (opened ahead: both are open until the first is
// finalized). Each shows the lines its period's charges make so far, the
// minimum's top-up included, a due date as if it were finalized at the end
// of its grace. An organization without a rate card has none; one that
// does not exist is domain.ErrNotFound.
func (h *PreviewInvoicesHandler) Handle(ctx context.Context, c PreviewInvoices) ([]*invoicing.Invoice, error) {
	now := h.d.Clock.Now()
	var ps []previewed
	err := h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
		ps = ps[:0]
		if _, err := r.Organizations.Get(ctx, c.OrganizationID); err != nil {
			if errors.Is(err, domain.ErrNotFound) {
				return fmt.Errorf("organization %q: %w", c.OrganizationID, err)
			}
			return err
		}
		fees, err := h.d.accrue(ctx, r, c.OrganizationID, now)
		if err != nil {
			return err
		}
		h.d.observeCharges(fees)
		p, err := r.BillingPeriods.LockOpen(ctx, c.OrganizationID)
		if errors.Is(err, domain.ErrNotFound) {
			return nil // no rate card: nothing is billed
		}
		if err != nil {
			return err
		}
		periods := []billingports.OpenPeriod{p}
		if !now.Before(p.Period.End) { // in its grace: the new month is open too
			next, err := r.BillingPeriods.StartNext(ctx, p, h.d.Settings.Calendar.NextMonthStart(p.Period.End), h.d.IDs.NewID("inv"))
			if err != nil {
				return fmt.Errorf("open the next period: %w", err)
			}
			periods = append(periods, next)
		}
		w := make([]billingports.Window, len(periods))
		for i, p := range periods {
			w[i] = billingports.Window{OrganizationID: c.OrganizationID, Start: p.Period.Start, End: p.Period.End}
		}
		all, err := r.Charges.Sums(ctx, w)
		if err != nil {
			return err
		}
		minimums, err := r.RateCards.Minimums(ctx, w)
		if err != nil {
			return err
		}
		credits, err := r.BillingPeriods.Credits(ctx, w[:1])
		if err != nil {
			return err
		}
		for i, p := range periods {
			ps = append(ps, previewed{period: p, sums: all[i], minimum: minimums[i]})
		}
		ps[0].credit = credits[0]
		for _, p := range ps {
			if c.Charges == nil {
				break
			}
			if _, err := r.Charges.OfInvoice(ctx, c.OrganizationID, p.period.InvoiceID, ports.Page{Take: max(c.ChargesTake, 0)}, c.Charges); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*invoicing.Invoice, 0, len(ps))
	for i := range ps {
		inv, carried, err := h.invoice(ps[i], now)
		if err != nil {
			return nil, err
		}
		if i+1 < len(ps) { // the next invoice brings what this one carries forward
			ps[i+1].credit = ps[i].credit
			if len(inv.Items()) > 0 {
				ps[i+1].credit = carried
			}
		}
		out = append(out, inv)
	}
	return out, nil
}

// invoice is the invoice p would be, as the API shows it, and the credit
// it would carry forward.
func (h *PreviewInvoicesHandler) invoice(p previewed, now time.Time) (*invoicing.Invoice, int64, error) {
	// As finalized at the end of its grace (or now, when that has passed).
	at := p.period.Period.End.Add(h.d.Settings.Grace)
	if at.Before(now) {
		at = now
	}
	inv, carried, err := h.d.invoiceOf(closing{period: p.period, end: p.period.Period.End}, at, p.sums, p.minimum, p.credit)
	if err != nil {
		return nil, 0, err
	}
	status := invoicing.InvoiceAccumulating
	if !now.Before(p.period.Period.End) {
		status = invoicing.InvoiceDraft
	}
	params := invoicing.InvoiceParams{ID: p.period.InvoiceID, OrganizationID: p.period.OrganizationID, Status: status,
		Name: inv.Name, Notes: inv.Notes, DueDate: inv.DueDate,
		Currency: invoicing.CurrencyUSD, CreatedAt: p.period.Period.Start, UpdatedAt: now}
	for i, l := range inv.Lines {
		q, err := domain.QuantityFromMilli(l.Milli)
		if err != nil {
			return nil, 0, err
		}
		tc := l.Total
		params.Items = append(params.Items, invoicing.InvoiceItemParams{ID: p.period.InvoiceID + "_" + strconv.Itoa(i), Title: l.Title,
			Description: l.Description, Quantity: q, UnitCost: l.UnitCost, TotalCost: &tc})
	}
	return invoicing.RehydrateInvoice(params, inv.TotalAmount), carried, nil
}
