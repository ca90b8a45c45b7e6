package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// AddCharge records an operator's charge, or a credit with a negative unit
// cost (`fulfillment charges add`), once per (organization, reference).
// Its JSON is the audit record's input.
type AddCharge struct {
	OrganizationID string      `json:"organizationId"`
	Reference      string      `json:"reference"`
	Title          string      `json:"title"`
	Description    string      `json:"description,omitempty"`
	Quantity       string      `json:"quantity"`       // a decimal with at most three decimals, above 0
	UnitCost       int64       `json:"unitCost"`       // cents; negative for a credit
	Date           string      `json:"date,omitempty"` // YYYY-MM-DD in the billing time zone; "" is now
	Actor          audit.Actor `json:"-"`              // who adds it (docs/audit.md)
}

// AddChargeResult says what was recorded.
type AddChargeResult struct {
	Added     bool   // false: the reference was recorded before, nothing changed
	ForPeriod string // the closed period it was for, when dated into one
}

// AddChargeHandler answers AddCharge.
type AddChargeHandler struct {
	d     Deps
	audit *application.Auditor[billingports.Repositories]
}

// NewAddChargeHandler builds the handler.
func NewAddChargeHandler(d Deps) *AddChargeHandler {
	return &AddChargeHandler{d: d, audit: d.auditor()}
}

// Handle validates and records the charge on the organization's open
// invoice. One dated into a closed period lands there too, its line naming
// the period it was for. A credit is never refused for its size within the
// bounds: what it exceeds its invoice by is carried forward to the next
// (billing.Lines, the one place of that rule).
//
// Under the organization's billing lock (LockOpen), so that concurrent
// charges of one organization are checked one after the other: a
// reference recorded already answers unchanged when its content is the
// same (Added false) and billing.ErrReferenceConflict when it is not; a new
// charge that would take its line or its period past the bounds is refused
// with billing.ErrPastBounds (docs/billing.md, "Bounds").
//
// Its audit record (charges.add) is done, unchanged for a reference
// recorded before with the same content, or the refusal's code.
func (h *AddChargeHandler) Handle(ctx context.Context, c AddCharge) (AddChargeResult, error) {
	var out AddChargeResult
	op := application.Operation{Actor: c.Actor, Action: audit.ChargesAdd, OrganizationID: c.OrganizationID, Input: c}
	err := h.audit.Do(ctx, op, func(ctx context.Context, r billingports.Repositories, rec *audit.Record) error {
		var err error
		if out, err = h.add(ctx, r, c); err == nil && !out.Added {
			rec.Outcome = audit.Unchanged
		}
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

// add validates c and records it in r's transaction.
func (h *AddChargeHandler) add(ctx context.Context, r billingports.Repositories, c AddCharge) (AddChargeResult, error) {
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
	cal, now := h.d.Settings.Calendar, h.d.Clock.Now()
	at, dated := now, c.Date != ""
	var day billing.Date
	if dated {
		if day, err = billing.ParseDate(c.Date); err != nil {
			return out, domain.Invalid("date", "%q is not a date YYYY-MM-DD", c.Date)
		}
		if cal.Day(now).Before(day) {
			return out, domain.Invalid("date", "%s is in the future", c.Date)
		}
		if day.Before(billing.MinChargeDate) {
			return out, domain.Invalid("date", "%s is before %s", c.Date, billing.MinChargeDate)
		}
		at = cal.Start(day)
	}
	charge := billingports.OperatorCharge{OrganizationID: c.OrganizationID, Reference: c.Reference, Title: strings.TrimSpace(c.Title),
		Description: strings.TrimSpace(c.Description), QuantityMilli: q.Milli(), UnitCost: c.UnitCost}
	if _, err := r.BillingPeriods.LockOpen(ctx, c.OrganizationID); err != nil {
		return out, fmt.Errorf("the open period of %s (is a rate card set?): %w", c.OrganizationID, err)
	}
	stored, err := r.Charges.OperatorCharge(ctx, c.OrganizationID, c.Reference)
	switch {
	case err == nil:
		if !sameCharge(cal, stored, charge, dated, day) {
			return out, fmt.Errorf("%w: charge %s of %s was recorded with other content", billing.ErrReferenceConflict, c.Reference, c.OrganizationID)
		}
		return out, nil // recorded before: Added stays false
	case !errors.Is(err, domain.ErrNotFound):
		return out, err
	}
	if dated {
		// Before the organization's first period (no card in force by
		// the end of that month) a date is a mistake, not a charge.
		if _, err := r.RateCards.InForce(ctx, c.OrganizationID, cal.NextMonthStart(at).Add(-time.Microsecond)); errors.Is(err, domain.ErrNotFound) {
			return out, domain.Invalid("date", "%s is before the first billing period of %s", c.Date, c.OrganizationID)
		} else if err != nil {
			return out, err
		}
	}
	closedUntil, err := r.BillingPeriods.ClosedUntil(ctx, c.OrganizationID)
	if err != nil {
		return out, err
	}
	if at.Before(closedUntil) {
		// On the open invoice: a charge belongs to the period of its
		// time, so it is dated the first open period's start.
		out.ForPeriod = cal.ClosedName(at, closedUntil)
		at = closedUntil
	}
	charge.OccurredAt, charge.ForPeriod = at, out.ForPeriod
	if err := h.checkBounds(ctx, r, closedUntil, charge); err != nil {
		return out, err
	}
	out.Added, err = r.Charges.AddOperatorCharge(ctx, charge)
	return out, err
}

// checkBounds refuses a charge that would take its line, or the charges,
// credits or total of the period it goes on, past billing.MaxPeriodCents:
// the sums of that period so far, and the credit the organization brings
// forward to it, under the billing lock the caller holds. The period is
// the month of the charge's time, from the last close (closedUntil) on
// when that falls inside the month: the period its invoice will bill.
func (h *AddChargeHandler) checkBounds(ctx context.Context, r billingports.Repositories, closedUntil time.Time, c billingports.OperatorCharge) error {
	cal := h.d.Settings.Calendar
	w := billingports.Window{OrganizationID: c.OrganizationID, Start: cal.MonthStart(c.OccurredAt), End: cal.NextMonthStart(c.OccurredAt)}
	if w.Start.Before(closedUntil) {
		w.Start = closedUntil
	}
	windows := []billingports.Window{w}
	sums, err := r.Charges.Sums(ctx, windows)
	if err != nil {
		return err
	}
	credits, err := r.BillingPeriods.Credits(ctx, windows)
	if err != nil {
		return err
	}
	return billing.CheckOperatorCharge(sums[0], credits[0], billing.Sum{Fee: billing.FeeOperator, Title: c.Title,
		UnitCost: c.UnitCost, Divisor: 1, Milli: c.QuantityMilli, Facts: 1, Description: c.Description, ForPeriod: c.ForPeriod})
}

// sameCharge reports whether a charge asked again under its reference is
// the one stored: the same title, quantity and unit cost, the same
// description when the request gives one, and, when it names a date, the
// same day (or, for a charge dated into a closed period, the same month it
// was for). What a request leaves out (a retry of `charges add` without
// its --description or --date: the date was today when it was recorded)
// matches what is stored.
func sameCharge(cal billing.Calendar, stored, asked billingports.OperatorCharge, dated bool, day billing.Date) bool {
	if stored.Title != asked.Title || stored.QuantityMilli != asked.QuantityMilli || stored.UnitCost != asked.UnitCost ||
		(asked.Description != "" && stored.Description != asked.Description) {
		return false
	}
	if !dated {
		return true
	}
	if stored.ForPeriod != "" {
		return strings.HasPrefix(stored.ForPeriod, day.Month.String()+" ") && strings.HasSuffix(stored.ForPeriod, ", "+strconv.Itoa(day.Year)) ||
			stored.ForPeriod == cal.MonthName(cal.Start(day))
	}
	return cal.Day(stored.OccurredAt) == day
}
