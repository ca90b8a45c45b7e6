package billing

import (
	"context"
	"errors"
	"fmt"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// SeedBilling is billing's part of `fulfillment seed` (fixtureports.SeedBilling):
// a fixture's rate cards, set in the seed's transaction as `rates set`
// would.
type SeedBilling struct{ d Deps }

// NewSeedBilling builds billing's part of the seed.
func NewSeedBilling(d Deps) SeedBilling { return SeedBilling{d: d} }

// SetRateCards sets the cards and counts them. A card stored already,
// unchanged, is left as it is: seeding the same fixture again (`make run`
// after a `billing close`) is not setting a card into the period closed
// since.
func (s SeedBilling) SetRateCards(ctx context.Context, r billingports.Repositories, cards []billing.RateCardParams) (int, error) {
	for i, p := range cards {
		card, err := billing.NewRateCard(p)
		if err != nil {
			return 0, err
		}
		stored, err := r.RateCards.InForce(ctx, card.OrganizationID(), s.d.Settings.Calendar.Start(card.EffectiveFrom()))
		if err == nil && stored.Equal(card) {
			continue
		}
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return 0, err
		}
		if _, err := SetCard(ctx, s.d, r, card); err != nil {
			return 0, fmt.Errorf("rateCards[%d]: %w", i, err)
		}
	}
	return len(cards), nil
}
