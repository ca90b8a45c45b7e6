package ports

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// Fixture is a whole fixture document, validated into domain values.
type Fixture struct {
	Organizations []domain.Organization
	Warehouses    []FixtureWarehouse
	Inventory     []shipping.InventoryItem
	Stock         []shipping.Stock
	Invoices      []*invoicing.Invoice
	APIKeys       []domain.APIKey
	Secrets       []domain.WebhookSecret
	// OpenedAt dates the opening movements of the stock rows (the stock
	// ledger): when the seed runs.
	OpenedAt  time.Time
	RateCards []billing.RateCardParams // set after the rest, as `rates set` would
}

// FixtureWarehouse is a warehouse and the organizations it is available to.
type FixtureWarehouse struct {
	domain.Warehouse
	Organizations []string
}

// FixtureCounts tells how many records a load inserted (records already
// present are left as they are and not counted).
type FixtureCounts map[string]int

// SeedBilling is billing's part of a seed, which the seed calls in its
// transaction, with its repositories, so that the fixture's rate cards
// commit with the rest of it or not at all. application/billing
// implements it.
type SeedBilling interface {
	// SetRateCards sets a fixture's rate cards, as `rates set` would, and
	// counts them; a card stored already, unchanged, is left as it is.
	SetRateCards(ctx context.Context, r Repositories, cards []billing.RateCardParams) (int, error)
}

// FixtureStore writes a fixture; records whose IDs exist already are kept
// unchanged, so loading the same fixture twice changes nothing.
type FixtureStore interface {
	Load(ctx context.Context, f Fixture) (FixtureCounts, error)
}
