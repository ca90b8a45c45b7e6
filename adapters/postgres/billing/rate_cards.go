package billing

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// RateCardRepository implements billingports.RateCardRepository.
type RateCardRepository struct{ run postgres.Runner }

var _ billingports.RateCardRepository = (*RateCardRepository)(nil)

// A card's fees are rows of rate_card_fees (migrations/0024), one per fee
// of the tariff, 0s included. The fees that had a column of rate_cards
// before (legacyFeeColumns) are written there too, for the previous
// release (docs/migrations.md, "Expand, then contract"): it reads a card's
// prices from the columns during an upgrade and after a rollback. A later
// release drops the columns, setRateCardSQL's list of them and the
// migration's trigger; a new fee never gets a column.

// legacyFeeColumns are the fees with a column of rate_cards, in the order
// of setRateCardSQL's $4…$11: a list closed for good.
var legacyFeeColumns = []billing.Fee{billing.PickPackOrder, billing.PickPackUnit, billing.SPDCarton, billing.ReceivingUnit,
	billing.ReceivingCarton, billing.StorageUnitMonth, billing.StorageCartonMonth, billing.MinimumMonthly}

const (
	// setRateCardSQL writes the card, its legacy fee columns included.
	setRateCardSQL postgres.SQLInsert = `INSERT INTO rate_cards (organization_id, effective_from, effective_at, pick_pack_order, pick_pack_unit,
	spd_carton, receiving_unit, receiving_carton, storage_unit_month, storage_carton_month, minimum_monthly, services, created_at)
VALUES ($1, $2::date, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13)
ON CONFLICT (organization_id, effective_from) DO UPDATE SET effective_at = EXCLUDED.effective_at,
	pick_pack_order = EXCLUDED.pick_pack_order, pick_pack_unit = EXCLUDED.pick_pack_unit,
	spd_carton = EXCLUDED.spd_carton, receiving_unit = EXCLUDED.receiving_unit,
	receiving_carton = EXCLUDED.receiving_carton, storage_unit_month = EXCLUDED.storage_unit_month,
	storage_carton_month = EXCLUDED.storage_carton_month, minimum_monthly = EXCLUDED.minimum_monthly,
	services = EXCLUDED.services, created_at = EXCLUDED.created_at`

	// setRateCardFeesSQL writes the card's fees $3 at the prices $4 (two
	// arrays), replacing its former prices.
	setRateCardFeesSQL postgres.SQLInsert = `INSERT INTO rate_card_fees (organization_id, effective_from, fee, cents)
SELECT $1, $2::date, f.fee, f.cents FROM unnest($3::text[], $4::bigint[]) AS f(fee, cents)
ON CONFLICT (organization_id, effective_from, fee) DO UPDATE SET cents = EXCLUDED.cents`

	// rateCardInForceSQL reads the card in force and its fees, as a JSON
	// object of cents by fee.
	rateCardInForceSQL postgres.SQLSelect = `SELECT rc.organization_id, rc.effective_from::text, rc.services::text,
	coalesce((SELECT json_object_agg(k.fee, k.cents) FROM rate_card_fees k
		WHERE k.organization_id = rc.organization_id AND k.effective_from = rc.effective_from)::text, '{}')
FROM rate_cards rc WHERE rc.organization_id = $1 AND rc.effective_at <= $2
ORDER BY rc.effective_at DESC LIMIT 1`
)

// serviceJSON is a service as stored in rate_cards.services.
type serviceJSON struct {
	Title    string `json:"title"`
	UnitCost int64  `json:"unitCost"`
}

// Set stores the card, replacing one of the same day.
func (r *RateCardRepository) Set(ctx context.Context, c *billing.RateCard, effectiveAt, now time.Time) error {
	services := map[string]serviceJSON{}
	for _, code := range c.ServiceCodes() {
		s, _ := c.Service(code)
		services[code] = serviceJSON{Title: s.Title, UnitCost: s.UnitCost}
	}
	js, err := json.Marshal(services)
	if err != nil {
		return fmt.Errorf("encode services: %w", err)
	}
	args := []any{c.OrganizationID(), c.EffectiveFrom().String(), effectiveAt}
	for _, f := range legacyFeeColumns {
		args = append(args, c.Fee(f))
	}
	args = append(args, string(js), now)
	if _, err = r.run.Exec(ctx, setRateCardSQL, args...); err != nil {
		return postgres.DBErr(err)
	}
	fees, cents := make([]string, len(billing.Fees)), make([]int64, len(billing.Fees))
	for i, f := range billing.Fees {
		fees[i], cents[i] = string(f), c.Fee(f)
	}
	_, err = r.run.Exec(ctx, setRateCardFeesSQL, c.OrganizationID(), c.EffectiveFrom().String(), postgres.Array(fees), postgres.Array(cents))
	return postgres.DBErr(err)
}

// InForce returns the card in force at at, or domain.ErrNotFound.
func (r *RateCardRepository) InForce(ctx context.Context, organizationID string, at time.Time) (*billing.RateCard, error) {
	var card *billing.RateCard
	err := r.run.Query(ctx, rateCardInForceSQL, func(rows *sql.Rows) error {
		var p billing.RateCardParams
		var services, fees string
		if err := rows.Scan(&p.OrganizationID, &p.EffectiveFrom, &services, &fees); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(fees), &p.Fees); err != nil {
			return fmt.Errorf("decode fees: %w", err)
		}
		var stored map[string]serviceJSON
		if err := json.Unmarshal([]byte(services), &stored); err != nil {
			return fmt.Errorf("decode services: %w", err)
		}
		p.Services = make(map[string]billing.Service, len(stored))
		for code, s := range stored {
			p.Services[code] = billing.Service{Title: s.Title, UnitCost: s.UnitCost}
		}
		var err error
		card, err = billing.NewRateCard(p)
		return err
	}, organizationID, at)
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	if card == nil {
		return nil, domain.ErrNotFound
	}
	return card, nil
}

// Service returns the service of that code on the card in force at at.
func (r *RateCardRepository) Service(ctx context.Context, organizationID, code string, at time.Time) (billing.Service, error) {
	card, err := r.InForce(ctx, organizationID, at)
	if err != nil {
		return billing.Service{}, err
	}
	s, ok := card.Service(code)
	if !ok {
		return billing.Service{}, fmt.Errorf("service %q: %w", code, domain.ErrNotFound)
	}
	return s, nil
}

// minimumsSQL reads the monthly minimum of the card in force at each
// window's last instant (before its end), numbered by the window's
// position: 0 when the organization was off-boarded (billing close) after
// that card took effect.
var minimumsSQL = postgres.SQLSelect(`SELECT w.n, CASE WHEN a.offboarded_at >= rc.effective_at THEN 0 ELSE ` +
	priceOf(quote(string(billing.MinimumMonthly))) + ` END
FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS w(organization_id, ends_at, n)
JOIN LATERAL (SELECT organization_id, effective_from, effective_at FROM rate_cards rc WHERE rc.organization_id = w.organization_id AND rc.effective_at < w.ends_at
	ORDER BY rc.effective_at DESC LIMIT 1) rc ON true
LEFT JOIN billing_accounts a ON a.organization_id = w.organization_id`)

// Minimums reads the minimums of the cards in force at the windows' ends.
func (r *RateCardRepository) Minimums(ctx context.Context, windows []billingports.Window) ([]int64, error) {
	orgs, _, ends := windowArrays(windows)
	out := make([]int64, len(windows))
	err := r.run.Query(ctx, minimumsSQL, func(rows *sql.Rows) error {
		var n int
		var m int64
		if err := rows.Scan(&n, &m); err != nil {
			return err
		}
		out[n-1] = m
		return nil
	}, orgs, ends)
	return out, postgres.DBErr(err)
}
