package application

import (
	"context"
	"errors"
	"fmt"

	"github.com/acme3pl/fulfillment/ports"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// Seed loads a fixture document.
type Seed struct {
	Fixture fixtureports.Fixture
}

// SeedHandler loads fixtures in one transaction: all of it or nothing.
type SeedHandler struct {
	uow     ports.UnitOfWork[fixtureports.Repositories]
	clock   ports.Clock
	billing fixtureports.SeedBilling
}

// NewSeedHandler builds the handler; billing, which sets a fixture's rate
// cards, may be nil: a fixture that holds any is then refused.
func NewSeedHandler(uow ports.UnitOfWork[fixtureports.Repositories], clock ports.Clock, billing fixtureports.SeedBilling) *SeedHandler {
	return &SeedHandler{uow: uow, clock: clock, billing: billing}
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
		if h.billing == nil {
			return errors.New("this fixture holds rate cards, which this seed cannot set")
		}
		counts["rateCards"], err = h.billing.SetRateCards(ctx, r.Billing, c.Fixture.RateCards)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	return counts, nil
}
