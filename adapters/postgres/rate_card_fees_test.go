package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/migrations"
)

// TestRateCardFeesMigration: 0024 moves a card's fees from the columns of
// rate_cards to rows of rate_card_fees, and the two releases of an upgrade
// read each other's cards: a card stored before it, and one the previous
// release writes through the columns after it (during the upgrade, or
// after a rollback), read with their prices; a card this release stores
// keeps the columns the previous release reads; and 0024 goes down.
func TestRateCardFeesMigration(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t, pgtest.Database(t, true))
	m := pgtest.NewMigrator(t, db, migrations.FS)
	down := func() {
		t.Helper()
		for { // the migrations after 0024, then 0024
			name, err := m.Down(ctx)
			if err != nil || name == "" {
				t.Fatalf("down: %q, %v", name, err)
			}
			if name == "0024_rate_card_fees" {
				return
			}
		}
	}
	down()
	billExec(t, db, `INSERT INTO organizations (id, name) VALUES ('org_rcf', 'RCF')`)
	// The previous release's write: the fees as columns.
	previous := func(day string, spd int64) {
		t.Helper()
		billExec(t, db, `INSERT INTO rate_cards (organization_id, effective_from, effective_at, pick_pack_order, spd_carton,
	minimum_monthly, created_at) VALUES ('org_rcf', ?::date, ?::date, 250, ?, 5000, now())
	ON CONFLICT (organization_id, effective_from) DO UPDATE SET spd_carton = EXCLUDED.spd_carton`, day, day, spd)
	}
	previous("2030-01-01", 400)
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	cards := postgres.UnpreparedRepositories(db, pgbilling.Repositories).RateCards
	wantFees := func(at string, want map[billing.Fee]int64) {
		t.Helper()
		day, err := time.Parse(time.DateOnly, at)
		if err != nil {
			t.Fatal(err)
		}
		card, err := cards.InForce(ctx, "org_rcf", day)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range billing.Fees {
			if card.Fee(f) != want[f] {
				t.Errorf("card of %s: %s = %d, want %d", card.EffectiveFrom(), f, card.Fee(f), want[f])
			}
		}
	}
	wantFees("2030-01-01", map[billing.Fee]int64{billing.PickPackOrder: 250, billing.SPDCarton: 400, billing.MinimumMonthly: 5000})

	previous("2030-02-01", 410)
	wantFees("2030-02-01", map[billing.Fee]int64{billing.PickPackOrder: 250, billing.SPDCarton: 410, billing.MinimumMonthly: 5000})
	previous("2030-02-01", 420) // the same day again: replaced
	wantFees("2030-02-01", map[billing.Fee]int64{billing.PickPackOrder: 250, billing.SPDCarton: 420, billing.MinimumMonthly: 5000})

	card, err := billing.NewRateCard(billing.RateCardParams{OrganizationID: "org_rcf", EffectiveFrom: "2030-03-01",
		Fees: map[string]int64{"pick_pack_unit": 40, "storage_carton_month": 450}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := cards.Set(ctx, card, at, at); err != nil {
		t.Fatal(err)
	}
	wantFees("2030-03-01", map[billing.Fee]int64{billing.PickPackUnit: 40, billing.StorageCartonMonth: 450})
	var unit, carton, order int64
	if err := db.QueryRowContext(ctx, `SELECT pick_pack_unit, storage_carton_month, pick_pack_order FROM rate_cards
	WHERE organization_id = 'org_rcf' AND effective_from = '2030-03-01'`).Scan(&unit, &carton, &order); err != nil {
		t.Fatal(err)
	}
	if unit != 40 || carton != 450 || order != 0 {
		t.Errorf("the columns the previous release reads: pick_pack_unit %d, storage_carton_month %d, pick_pack_order %d; want 40, 450, 0",
			unit, carton, order)
	}
	down()
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	wantFees("2030-03-01", map[billing.Fee]int64{billing.PickPackUnit: 40, billing.StorageCartonMonth: 450})
}
