package billing

import (
	"context"
	"fmt"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
)

// AddCharge records an operator's charge, or a credit with a negative unit
// cost (`fulfillment charges add`), once per (organization, reference).
type AddCharge struct {
	OrganizationID string
	Reference      string
	Title          string
	Description    string
	Quantity       string // a decimal with at most three decimals, above 0
	UnitCost       int64  // cents; negative for a credit
	Date           string // YYYY-MM-DD in the billing time zone; "" is now
}

// AddChargeResult says what was recorded.
type AddChargeResult struct {
	Added     bool   // false: the reference was recorded before, nothing changed
	ForPeriod string // the closed period it was for, when dated into one
}

// AddChargeHandler answers AddCharge.
type AddChargeHandler struct{ d Deps }

// NewAddChargeHandler builds the handler.
func NewAddChargeHandler(d Deps) *AddChargeHandler { return &AddChargeHandler{d: d} }

// Handle validates and records the charge on the organization's open
// invoice. One dated into a closed period lands there too, its line naming
// the month it was for. A credit is never refused for its size: what it
// exceeds its invoice by is carried forward to the next (billing.Lines,
// the one place of that rule).
func (h *AddChargeHandler) Handle(ctx context.Context, c AddCharge) (AddChargeResult, error) {
	var out AddChargeResult
	if c.Reference == "" || len(c.Reference) > 64 {
		return out, domain.Invalid("reference", "must be 1 to 64 characters")
	}
	if strings.TrimSpace(c.Title) == "" || len(c.Title) > 200 {
		return out, domain.Invalid("title", "must be 1 to 200 characters")
	}
	q, err := domain.ParseQuantity(c.Quantity)
	if err != nil || q.Milli() == 0 || q.Milli() > 1_000_000_000_000 {
		return out, domain.Invalid("quantity", "%q is not a quantity above 0 and at most 1000000000 with at most three decimals", c.Quantity)
	}
	if c.UnitCost == 0 || c.UnitCost > billing.MaxCents || c.UnitCost < -billing.MaxCents {
		return out, domain.Invalid("unitCost", "must be cents from -%d to %d, not 0", int64(billing.MaxCents), int64(billing.MaxCents))
	}
	if _, err := billing.LineTotal(q.Milli(), c.UnitCost); err != nil {
		return out, domain.Invalid("quantity", "quantity × unitCost is too large")
	}
	cal, now := h.d.Settings.Calendar, h.d.Clock.Now()
	at := now
	if c.Date != "" {
		day, err := billing.ParseDate(c.Date)
		if err != nil {
			return out, domain.Invalid("date", "%q is not a date YYYY-MM-DD", c.Date)
		}
		if cal.Day(now).Before(day) {
			return out, domain.Invalid("date", "%s is in the future", c.Date)
		}
		at = cal.Start(day)
	}
	err = h.d.UnitOfWork.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		p, err := r.BillingPeriods.LockOpen(ctx, c.OrganizationID)
		if err != nil {
			return fmt.Errorf("the open period of %s (is a rate card set?): %w", c.OrganizationID, err)
		}
		if at.Before(p.Period.Start) {
			// On the open invoice: a charge belongs to the period of its
			// time, so it is dated the open period's start.
			out.ForPeriod = cal.MonthName(at)
			at = p.Period.Start
		}
		out.Added, err = r.Charges.AddOperatorCharge(ctx, ports.OperatorCharge{OrganizationID: c.OrganizationID,
			Reference: c.Reference, Title: strings.TrimSpace(c.Title), Description: strings.TrimSpace(c.Description),
			QuantityMilli: q.Milli(), UnitCost: c.UnitCost, OccurredAt: at, ForPeriod: out.ForPeriod})
		return err
	})
	if err != nil {
		return AddChargeResult{}, err
	}
	if out.Added {
		h.d.observer().ObserveCharges(string(billing.FeeOperator), 1)
	}
	return out, nil
}
