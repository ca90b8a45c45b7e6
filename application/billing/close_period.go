package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// ClosePeriod off-boards an organization (`fulfillment billing close`):
// its open periods end now and are finalized at once, the next period
// starts at that instant, and no period after it bills a minimum until a
// card with a later effectiveFrom is set.
// Its JSON is the audit record's input.
type ClosePeriod struct {
	OrganizationID string      `json:"organizationId"`
	Actor          audit.Actor `json:"-"` // who closes (docs/audit.md)
}

// Closed is what a close finalized: the period that ended now, and, when
// the close came during the grace of the month before, that month's draft
// first (finalized at its own end, with the lower key).
type Closed struct {
	billingports.FinalizedInvoice
	Draft *billingports.FinalizedInvoice
}

// All lists the finalized periods in finalization order.
func (c Closed) All() []billingports.FinalizedInvoice {
	if c.Draft == nil {
		return []billingports.FinalizedInvoice{c.FinalizedInvoice}
	}
	return []billingports.FinalizedInvoice{*c.Draft, c.FinalizedInvoice}
}

// ClosePeriodHandler answers ClosePeriod.
type ClosePeriodHandler struct {
	d     Deps
	audit *application.Auditor[billingports.Repositories]
}

// NewClosePeriodHandler builds the handler.
func NewClosePeriodHandler(d Deps) *ClosePeriodHandler {
	return &ClosePeriodHandler{d: d, audit: d.auditor()}
}

// Handle accrues what is due to the organization and finalizes its open
// periods, in one transaction under the organization's billing lock. A
// period that has ended already (a draft in its grace) is finalized at its
// own end, and the month open beside it up to now. Closed again with
// nothing charged since (or by several operators at once: the lock queues
// them), it finalizes a period that bills nothing, which makes no invoice:
// the result's Key is "".
//
// Its audit record (billing.close) is done when it finalized an invoice,
// unchanged when it finalized none (nothing was billed), or the refusal's
// code.
func (h *ClosePeriodHandler) Handle(ctx context.Context, c ClosePeriod) (Closed, error) {
	var out Closed
	now := h.d.Clock.Now()
	op := application.Operation{Actor: c.Actor, Action: audit.BillingClose, OrganizationID: c.OrganizationID, Input: c}
	err := h.audit.Do(ctx, op, func(ctx context.Context, r billingports.Repositories, rec *audit.Record) error {
		if err := h.close(ctx, r, c, now, &out); err != nil {
			return err
		}
		rec.Outcome = audit.Unchanged
		for _, f := range out.All() {
			if f.Key != "" {
				rec.Outcome = audit.Done
			}
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	for _, f := range out.All() {
		if f.Invoice != nil {
			h.d.observer().ObserveInvoices(string(f.Invoice.Status()), 1)
		}
	}
	return out, nil
}

// close finalizes c's open periods in r's transaction (Handle).
func (h *ClosePeriodHandler) close(ctx context.Context, r billingports.Repositories, c ClosePeriod, now time.Time, out *Closed) error {
	fees, err := h.d.accrue(ctx, r, c.OrganizationID, now)
	if err != nil {
		return err
	}
	h.d.observeCharges(fees)
	*out = Closed{}
	for {
		p, err := r.BillingPeriods.LockOpen(ctx, c.OrganizationID)
		if err != nil {
			return fmt.Errorf("the open period of %s (is a rate card set?): %w", c.OrganizationID, err)
		}
		end := p.Period.End
		if now.Before(end) {
			end = now
		}
		if !end.After(p.Period.Start) {
			// Closed at this very instant already: nothing was charged since.
			out.FinalizedInvoice = billingports.FinalizedInvoice{OrganizationID: c.OrganizationID,
				Period: billing.Period{Start: p.Period.Start, End: end}}
			break
		}
		fs, err := h.d.finalize(ctx, r, []closing{{period: p, end: end}})
		if err != nil {
			return err
		}
		out.FinalizedInvoice = fs[0]
		if end.Equal(now) || out.Draft != nil {
			break
		}
		// A draft in its grace, finalized at its own end: the month
		// open beside it ends now.
		draft := fs[0]
		out.Draft = &draft
	}
	return r.BillingPeriods.Offboard(ctx, c.OrganizationID, now)
}
