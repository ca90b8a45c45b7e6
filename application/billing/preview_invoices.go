package billing

import (
	"context"
	"errors"
	"strconv"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports"
)

// PreviewInvoices shows an organization's open invoice as the API would
// show it once finalized (`fulfillment invoices preview`): accumulating
// while its period runs, draft after its end until its grace ends.
type PreviewInvoices struct {
	OrganizationID string
	// Charges, when set, is handed every charge of the open invoice, in
	// occurredAt order then ID, as GET /v0/invoices/{id}/charges will list
	// them once it is finalized (`invoices preview --charges`).
	Charges func(ports.InvoiceCharge) error
}

// PreviewInvoicesHandler answers PreviewInvoices.
type PreviewInvoicesHandler struct{ d Deps }

// NewPreviewInvoicesHandler builds the handler.
func NewPreviewInvoicesHandler(d Deps) *PreviewInvoicesHandler { return &PreviewInvoicesHandler{d: d} }

// Handle accrues what is due to the organization (as a run would), then
// reads its open invoice: the lines its period's charges make so far, the
// minimum's top-up included, a due date as if it were finalized at the
// end of its grace. An organization without a rate card has none.
func (h *PreviewInvoicesHandler) Handle(ctx context.Context, c PreviewInvoices) ([]*invoicing.Invoice, error) {
	now := h.d.Clock.Now()
	var p ports.OpenPeriod
	var sums []billing.Sum
	var minimum, credit int64
	err := h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		fees, err := h.d.accrue(ctx, r, c.OrganizationID, now)
		if err != nil {
			return err
		}
		h.d.observeCharges(fees)
		if p, err = r.BillingPeriods.LockOpen(ctx, c.OrganizationID); err != nil {
			return err
		}
		w := []ports.BillingWindow{{OrganizationID: c.OrganizationID, Start: p.Period.Start, End: p.Period.End}}
		all, err := r.Charges.Sums(ctx, w)
		if err != nil {
			return err
		}
		minimums, err := r.RateCards.Minimums(ctx, w)
		if err != nil {
			return err
		}
		credits, err := r.BillingPeriods.Credits(ctx, w)
		if err != nil {
			return err
		}
		sums, minimum, credit = all[0], minimums[0], credits[0]
		if c.Charges != nil {
			_, err = r.Charges.OfInvoice(ctx, c.OrganizationID, p.InvoiceID, ports.Page{}, c.Charges)
		}
		return err
	})
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// As finalized at the end of its grace (or now, when that has passed).
	at := p.Period.End.Add(h.d.Settings.Grace)
	if at.Before(now) {
		at = now
	}
	inv, _, err := h.d.invoiceOf(closing{period: p, end: p.Period.End, at: at}, sums, minimum, credit)
	if err != nil {
		return nil, err
	}
	status := invoicing.InvoiceAccumulating
	if !now.Before(p.Period.End) {
		status = invoicing.InvoiceDraft
	}
	params := invoicing.InvoiceParams{ID: p.InvoiceID, OrganizationID: c.OrganizationID, Status: status,
		Name: inv.Name, Notes: inv.Notes, DueDate: inv.DueDate,
		Currency: invoicing.CurrencyUSD, CreatedAt: p.Period.Start, UpdatedAt: now}
	for i, l := range inv.Lines {
		q, err := domain.QuantityFromMilli(l.Milli)
		if err != nil {
			return nil, err
		}
		tc := l.Total
		params.Items = append(params.Items, invoicing.InvoiceItemParams{ID: p.InvoiceID + "_" + strconv.Itoa(i), Title: l.Title,
			Description: l.Description, Quantity: q, UnitCost: l.UnitCost, TotalCost: &tc})
	}
	return []*invoicing.Invoice{invoicing.RehydrateInvoice(params, inv.TotalAmount)}, nil
}
