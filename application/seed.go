package application

import (
	"context"
	"fmt"

	"github.com/acme3pl/fulfillment/ports"
)

// Seed loads a fixture document.
type Seed struct {
	Fixture ports.Fixture
}

// SeedHandler loads fixtures in one transaction: all of it or nothing.
type SeedHandler struct {
	uow   ports.UnitOfWork
	clock ports.Clock
}

// NewSeedHandler builds the handler.
func NewSeedHandler(uow ports.UnitOfWork, clock ports.Clock) *SeedHandler {
	return &SeedHandler{uow: uow, clock: clock}
}

// Handle writes the fixture and returns what it inserted. Its stock rows are
// opening balances, each a movement dated now (when the seed runs).
func (h *SeedHandler) Handle(ctx context.Context, c Seed) (ports.FixtureCounts, error) {
	c.Fixture.OpenedAt = h.clock.Now()
	var counts ports.FixtureCounts
	err := h.uow.Do(ctx, func(ctx context.Context, r ports.Repositories) error {
		var err error
		counts, err = r.Fixtures.Load(ctx, c.Fixture)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	return counts, nil
}
