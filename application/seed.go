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
	uow ports.UnitOfWork
}

// NewSeedHandler builds the handler.
func NewSeedHandler(uow ports.UnitOfWork) *SeedHandler { return &SeedHandler{uow: uow} }

// Handle writes the fixture and returns what it inserted.
func (h *SeedHandler) Handle(ctx context.Context, c Seed) (ports.FixtureCounts, error) {
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
