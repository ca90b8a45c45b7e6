package billing

import (
	"context"
	"errors"
	"fmt"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// ClosePeriod ends an organization's open period now and finalizes its
// invoice at once (`fulfillment billing close`: off-boarding, an early
// invoice); the next period starts at that instant.
type ClosePeriod struct {
	OrganizationID string
}

// ClosePeriodHandler answers ClosePeriod.
type ClosePeriodHandler struct{ d Deps }

// NewClosePeriodHandler builds the handler.
func NewClosePeriodHandler(d Deps) *ClosePeriodHandler { return &ClosePeriodHandler{d: d} }

// Handle accrues what is due to the organization and finalizes its open
// period, in one transaction holding the period's row. A period that has
// ended already (a draft in its grace) is finalized at its own end.
func (h *ClosePeriodHandler) Handle(ctx context.Context, c ClosePeriod) (ports.FinalizedInvoice, error) {
	var out ports.FinalizedInvoice
	now := h.d.Clock.Now()
	err := h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		// The accrual first, then the period's row: the order of locks
		// every use case follows (accrue).
		fees, err := h.d.accrue(ctx, r, c.OrganizationID, now)
		if err != nil {
			return err
		}
		h.d.observeCharges(fees)
		p, err := r.BillingPeriods.LockOpen(ctx, c.OrganizationID)
		if err != nil {
			return fmt.Errorf("the open period of %s (is a rate card set?): %w", c.OrganizationID, err)
		}
		end := p.Period.End
		if now.Before(end) {
			end = now
		}
		if !end.After(p.Period.Start) {
			return fmt.Errorf("%w: the open period of %s starts now: there is nothing to close", domain.ErrInvalidState, c.OrganizationID)
		}
		fs, refused, err := h.d.finalize(ctx, r, []closing{{period: p, end: end, at: now}}, nil)
		if err != nil || refused != nil {
			return errors.Join(err, refused)
		}
		out = fs[0]
		return nil
	})
	if err != nil {
		return out, err
	}
	if out.Key != "" {
		h.d.observer().ObserveInvoices(string(domain.InvoiceUnpaid), 1)
	}
	return out, nil
}
