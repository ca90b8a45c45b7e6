package application

import (
	"context"
	"errors"
	"fmt"

	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// Seed loads a fixture document.
type Seed struct {
	Fixture fixtureports.Fixture
}

// SeedHandler loads fixtures in one transaction: all of it or nothing.
type SeedHandler struct {
	uow       ports.UnitOfWork[fixtureports.Repositories]
	clock     ports.Clock
	rateCards RateCardSeeder
}

// RateCardSeeder sets a fixture's rate cards in the seed's transaction
// (billing's SeedRateCards) and counts them.
type RateCardSeeder func(ctx context.Context, r billingports.Repositories, cards []billing.RateCardParams) (int, error)

// NewSeedHandler builds the handler; rateCards may be nil when no fixture
// holds any.
func NewSeedHandler(uow ports.UnitOfWork[fixtureports.Repositories], clock ports.Clock, rateCards ...RateCardSeeder) *SeedHandler {
	h := &SeedHandler{uow: uow, clock: clock}
	if len(rateCards) > 0 {
		h.rateCards = rateCards[0]
	}
	return h
}

// Handle writes the fixture and returns what it inserted. Its stock rows are
// opening balances, each a movement dated now (when the seed runs).
func (h *SeedHandler) Handle(ctx context.Context, c Seed) (fixtureports.Counts, error) {
	c.Fixture.OpenedAt = h.clock.Now()
	var counts fixtureports.Counts
	err := h.uow.Do(ctx, func(ctx context.Context, r fixtureports.Repositories) error {
		var err error
		if counts, err = r.Fixtures.Load(ctx, c.Fixture); err != nil || len(c.Fixture.RateCards) == 0 {
			return err
		}
		if h.rateCards == nil {
			return errors.New("this fixture holds rate cards, which this seed cannot set")
		}
		counts["rateCards"], err = h.rateCards(ctx, r.Billing, c.Fixture.RateCards)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	return counts, nil
}
