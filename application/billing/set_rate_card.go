package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// SetRateCard stores an organization's rate card (`fulfillment rates set`).
type SetRateCard struct {
	Card  billing.RateCardParams
	Actor audit.Actor // who sets it (docs/audit.md)
}

// SetRateCardHandler answers SetRateCard.
type SetRateCardHandler struct {
	d     Deps
	audit *application.Auditor[billingports.Repositories]
}

// NewSetRateCardHandler builds the handler.
func NewSetRateCardHandler(d Deps) *SetRateCardHandler {
	return &SetRateCardHandler{d: d, audit: d.auditor()}
}

// Handle stores the card in one transaction with what it changes: a card
// starting inside a closed period is refused (domain.ErrInvalidState), so a
// finalized invoice never changes; a card starting inside the open period
// reprices that period's charges from its first day on, in place; one
// that no longer offers a service code the open period's facts used is
// refused (domain.ErrInvalidState, naming the code and the count).
//
// Its audit record (rates.set), the card as its input, is done, unchanged
// when the same card was in force from the same day already, or the
// refusal's code.
func (h *SetRateCardHandler) Handle(ctx context.Context, c SetRateCard) (*billing.RateCard, error) {
	var (
		card *billing.RateCard
		fees map[billing.Fee]int
	)
	op := application.Operation{Actor: c.Actor, Action: audit.RatesSet, OrganizationID: c.Card.OrganizationID, Input: rateCardInput(c.Card)}
	err := h.audit.Do(ctx, op, func(ctx context.Context, r billingports.Repositories, rec *audit.Record) error {
		var err error
		if card, err = billing.NewRateCard(c.Card); err != nil {
			return err
		}
		stored, err := r.RateCards.InForce(ctx, card.OrganizationID(), h.d.Settings.Calendar.Start(card.EffectiveFrom()))
		if err == nil && stored.Equal(card) {
			rec.Outcome = audit.Unchanged
		} else if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		fees, err = SetCard(ctx, h.d, r, card)
		return err
	})
	if err != nil {
		return nil, err
	}
	h.d.observeCharges(fees)
	return card, nil
}

// SetCard stores card in r's transaction and reprices what it changes;
// the seed of a fixture's rateCards runs it too.
func SetCard(ctx context.Context, d Deps, r billingports.Repositories, card *billing.RateCard) (map[billing.Fee]int, error) {
	if _, err := r.Organizations.Get(ctx, card.OrganizationID()); err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return nil, domain.Invalid("organizationId", "%q is not an organization", card.OrganizationID())
		}
		return nil, err
	}
	cal, now := d.Settings.Calendar, d.Clock.Now()
	// The organization's billing lock first (docs/billing.md, "One lock
	// order"): a card reprices facts that may be accruing right now.
	if err := r.BillingPeriods.LockBilling(ctx, []string{card.OrganizationID()}); err != nil {
		return nil, err
	}
	if _, err := r.Charges.CatchUp(ctx, []string{card.OrganizationID()}, d.caughtUpThrough(now)); err != nil {
		return nil, fmt.Errorf("accrue facts: %w", err)
	}
	from := cal.Start(card.EffectiveFrom())
	open, err := r.BillingPeriods.Start(ctx, card.OrganizationID(), cal.MonthStart(from), cal.NextMonthStart(from), d.IDs.NewID("inv"))
	if err != nil {
		return nil, fmt.Errorf("open the billing period: %w", err)
	}
	if from.Before(open.Period.Start) {
		return nil, fmt.Errorf("%w: a card from %s reaches into a closed period (the open period of %s starts %s)",
			domain.ErrInvalidState, card.EffectiveFrom(), card.OrganizationID(), open.Period.Start.In(cal.Location()).Format("2006-01-02 15:04 MST"))
	}
	if err := r.RateCards.Set(ctx, card, from, now); err != nil {
		return nil, err
	}
	// No charge leaves the bill: a card that no longer offers a service
	// the open period's facts used is refused (docs/billing.md, "Rate
	// cards"), the others' charges are repriced where they are.
	off, err := r.Charges.ServicesOffCard(ctx, card.OrganizationID(), from)
	if err != nil {
		return nil, fmt.Errorf("services of the open period: %w", err)
	}
	if len(off) > 0 {
		uses := make([]string, len(off))
		for i, u := range off {
			uses[i] = fmt.Sprintf("%q (%d services)", u.Code, u.Count)
		}
		return nil, fmt.Errorf("%w: the card from %s does not offer %s, performed in the open period of %s since then",
			domain.ErrInvalidState, card.EffectiveFrom(), strings.Join(uses, ", "), card.OrganizationID())
	}
	if err := r.Charges.Reprice(ctx, card.OrganizationID(), from); err != nil {
		return nil, fmt.Errorf("reprice: %w", err)
	}
	return d.accrue(ctx, r, card.OrganizationID(), now)
}

// rateCardInput is a card's arguments as its audit record shows them: the
// card as `rates set --file` takes it.
func rateCardInput(p billing.RateCardParams) map[string]any {
	services := make(map[string]any, len(p.Services))
	for code, s := range p.Services {
		services[code] = map[string]any{"title": s.Title, "unitCost": s.UnitCost}
	}
	return map[string]any{"organizationId": p.OrganizationID, "effectiveFrom": p.EffectiveFrom, "fees": p.Fees, "services": services}
}
