package billing

import (
	"context"
	"database/sql"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// The storage accrual of ChargeRepository (charges.go), and the repricing
// (Reprice) that prices the open charges at a new card in place.

// accrueStorageSQL accrues the days of storage after each organization's
// watermark up to $1 (a date), in time zone $2, for the organizations $3
// (an array), reading their stock rows by the organization's index.
// Taking the watermark (UPDATE … FROM … FOR UPDATE) is the guard: a
// concurrent run waits for the row, then finds the watermark moved and
// accrues nothing; the unique key of billing_charges backs it up. On hand
// at the end of a day, per warehouse and kind, is a running sum by local
// day: from on hand at the end of the watermark's day — the balance now
// (product_stock, carton_stock: always the sum of the ledger's movements)
// less every movement since — through each later day's movements. A run
// reads the movements since its organizations' watermarks, never the
// ledger's whole history.
var accrueStorageSQL = postgres.SQLInsert(takeWatermarksSQL + balancesSQL(`organization_id = ANY($3::text[]) AND`) + storageOfWatermarksSQL)

// takeWatermarksSQL moves the watermarks of the organizations $3 that are
// behind day $1 to it, locking them in organization order, and keeps (acc)
// where each was.
const takeWatermarksSQL = `WITH acc AS (
	UPDATE billing_storage b SET accrued_through = $1::date
	FROM (SELECT organization_id, accrued_through FROM billing_storage
		WHERE accrued_through < $1::date AND organization_id = ANY($3::text[])
		ORDER BY organization_id FOR UPDATE) old
	WHERE b.organization_id = old.organization_id
	RETURNING b.organization_id, old.accrued_through AS done),
`

// balancesSQL is on hand now by organization, warehouse and kind (units:
// products) of the stock rows that match where, read only when a watermark
// was taken.
func balancesSQL(where string) string {
	return `balances AS (
	SELECT organization_id, warehouse_id, true AS units, sum(on_hand) AS q FROM product_stock
	WHERE ` + where + ` EXISTS (SELECT FROM acc) GROUP BY 1, 2
	UNION ALL
	SELECT organization_id, warehouse_id, false, sum(on_hand) FROM carton_stock
	WHERE ` + where + ` EXISTS (SELECT FROM acc) GROUP BY 1, 2),
`
}

// storageOfWatermarksSQL is the rest of both: the storage days of the
// watermarks taken (acc), from their organizations' balances.
var storageOfWatermarksSQL = `recent AS (
	SELECT m.organization_id, m.warehouse_id, m.product_id IS NOT NULL AS units,
		(m.occurred_at AT TIME ZONE $2)::date AS day, sum(m.quantity) AS q
	FROM acc a JOIN stock_movements m ON m.organization_id = a.organization_id
		AND m.occurred_at >= ((a.done + 1)::timestamp AT TIME ZONE $2)
	GROUP BY 1, 2, 3, 4),
moves AS (
	SELECT b.organization_id, b.warehouse_id, b.units, a.done AS day, b.q - coalesce(r.q, 0) AS q
	FROM balances b JOIN acc a ON a.organization_id = b.organization_id
	LEFT JOIN (SELECT organization_id, warehouse_id, units, sum(q) AS q FROM recent GROUP BY 1, 2, 3) r
		ON (r.organization_id, r.warehouse_id, r.units) = (b.organization_id, b.warehouse_id, b.units)
	UNION ALL
	SELECT organization_id, warehouse_id, units, day, q FROM recent WHERE day <= $1::date),
grid AS (
	SELECT k.organization_id, k.warehouse_id, k.units, a.done, d::date AS day
	FROM (SELECT DISTINCT organization_id, warehouse_id, units FROM moves) k
	JOIN acc a ON a.organization_id = k.organization_id
	CROSS JOIN generate_series(a.done::timestamp, $1::date::timestamp, interval '1 day') d),
onhand AS (
	SELECT g.organization_id, g.warehouse_id, g.units, g.done, g.day,
		sum(coalesce(m.q, 0)) OVER (PARTITION BY g.organization_id, g.warehouse_id, g.units ORDER BY g.day) AS q
	FROM grid g LEFT JOIN moves m USING (organization_id, warehouse_id, units, day))
INSERT INTO billing_charges (organization_id, fee, source_id, warehouse_id, title, quantity_milli, divisor, unit_cost, occurred_at)
SELECT o.organization_id, f.fee, o.warehouse_id || '@' || o.day, o.warehouse_id, f.title, least(o.q * 1000, 9223372036854775807),
	extract(day FROM date_trunc('month', o.day) + interval '1 month - 1 day')::int, ` + priceOf("f.fee") + `, t.at
FROM onhand o
CROSS JOIN LATERAL (SELECT ((o.day + 1)::timestamp AT TIME ZONE $2) - interval '1 microsecond') t(at)
JOIN LATERAL (SELECT * FROM rate_cards rc WHERE rc.organization_id = o.organization_id AND rc.effective_at <= t.at
	ORDER BY rc.effective_at DESC LIMIT 1) rc ON true
JOIN LATERAL (VALUES ` + feeRows(billing.StorageDay) + `) f(fee, title, units)
	ON f.units = o.units
WHERE o.day > o.done AND o.q > 0
ON CONFLICT (organization_id, fee, source_id) DO NOTHING
RETURNING fee`

// openStartOf is openStart of the organization $1: evaluated once, so that
// it bounds the scan of the index on (organization, time).
const openStartOf = `(SELECT op.starts_at FROM billing_periods op WHERE op.organization_id = $1 AND op.status = 'open')`

var (
	// repriceChargesSQL sets the open charges of the organization $1's
	// shipments, receipts and storage days dated from $2 on to the price of
	// the card in force at their time, in place: nothing is deleted, so a
	// charge no accrual would find again (a late shipment's, dated the
	// open period's start) keeps its place. A late charge's fact happened
	// before the open period, where no card of the open period applies:
	// it keeps its price. Operator charges keep theirs; services are
	// repriceServicesSQL's.
	repriceChargesSQL = postgres.SQLUpdate(`UPDATE billing_charges c SET unit_cost = n.cost
FROM (SELECT o.id, coalesce(k.cents, 0) AS cost
	FROM billing_charges o
	JOIN LATERAL (SELECT * FROM rate_cards rc WHERE rc.organization_id = $1 AND rc.effective_at <= o.occurred_at
		ORDER BY rc.effective_at DESC LIMIT 1) rc ON true
	LEFT JOIN rate_card_fees k ON ` + cardFee("o.fee") + `
	WHERE o.organization_id = $1 AND o.occurred_at >= $2 AND o.occurred_at >= ` + openStartOf + ` AND o.for_period = ''
		AND o.fee IN (` + feesOf(billing.AccruedFacts...) + `)) n
WHERE c.id = n.id AND c.unit_cost <> n.cost`)

	// repriceServicesSQL does the same for services: each at its code's
	// entry on the card in force when it was performed (ServicesOffCard
	// refused a card without it before).
	repriceServicesSQL = postgres.SQLUpdate(`UPDATE billing_charges c SET unit_cost = n.cost, title = n.title
FROM (SELECT o.id, (rc.services -> v.service ->> 'unitCost')::bigint AS cost, rc.services -> v.service ->> 'title' AS title
	FROM billing_charges o
	JOIN warehouse_services v ON v.id = o.source_id AND v.organization_id = $1
	JOIN LATERAL (SELECT * FROM rate_cards rc WHERE rc.organization_id = $1 AND rc.effective_at <= v.performed_at
		ORDER BY rc.effective_at DESC LIMIT 1) rc ON rc.services ? v.service
	WHERE o.organization_id = $1 AND o.fee = 'service' AND o.occurred_at >= $2 AND o.occurred_at >= ` + openStartOf + `
		AND o.for_period = '') n
WHERE c.id = n.id AND (c.unit_cost, c.title) IS DISTINCT FROM (n.cost, n.title)`)

	// servicesOffCardSQL counts, by code, the organization $1's services
	// of its open period performed from $2 on whose code the card in
	// force at their time does not offer.
	servicesOffCardSQL = postgres.SQLSelect(`SELECT v.service, count(*) FROM warehouse_services v
LEFT JOIN LATERAL (SELECT services FROM rate_cards rc WHERE rc.organization_id = $1 AND rc.effective_at <= v.performed_at
	ORDER BY rc.effective_at DESC LIMIT 1) rc ON true
WHERE v.organization_id = $1 AND v.performed_at >= $2 AND v.performed_at >= ` + openStartOf + `
	AND NOT coalesce(rc.services ? v.service, false)
GROUP BY v.service ORDER BY v.service`)
)

const (
	// startStorageSQL gives an organization its storage watermark: the day
	// before its first card.
	startStorageSQL postgres.SQLInsert = `INSERT INTO billing_storage (organization_id, accrued_through) VALUES ($1, $2::date - 1)
ON CONFLICT (organization_id) DO UPDATE SET accrued_through = least(billing_storage.accrued_through, EXCLUDED.accrued_through)`
)

// AccrueStorage accrues the days of storage up to through of the
// organizations, under their billing locks.
func (r *ChargeRepository) AccrueStorage(ctx context.Context, organizationIDs []string, through billing.Date) (map[billing.Fee]int, error) {
	if len(organizationIDs) == 0 {
		return map[billing.Fee]int{}, nil
	}
	if err := r.run.Lock(ctx, lockBillingSQL, postgres.Array(organizationIDs)); err != nil {
		return nil, err
	}
	return r.accrue(ctx, accrueStorageSQL, through.String(), r.settings.Zone(), postgres.Array(organizationIDs))
}

// Reprice prices the open charges of the organization's facts from `from`
// on at the cards in force at their times, in place, and takes its storage
// and catch-up watermarks back to `from` (see the port).
func (r *ChargeRepository) Reprice(ctx context.Context, organizationID string, from time.Time) error {
	if err := r.run.Lock(ctx, lockBillingSQL, postgres.Array([]string{organizationID})); err != nil {
		return err
	}
	day := billing.NewCalendar(r.settings.Location).Day(from)
	if _, err := r.run.Exec(ctx, startStorageSQL, organizationID, day.String()); err != nil {
		return postgres.DBErr(err)
	}
	for _, q := range []postgres.Statement{repriceChargesSQL, repriceServicesSQL} {
		if _, err := r.run.Exec(ctx, q, organizationID, from); err != nil {
			return postgres.DBErr(err)
		}
	}
	// The facts from `from` on without a charge (none was in force at
	// their time before this card) are the catch-up's: its watermark goes
	// back to `from`.
	_, err := r.run.Exec(ctx, rewindCatchUpSQL, organizationID, from)
	return postgres.DBErr(err)
}

// ServicesOffCard counts, by code, the organization's services of its open
// period from `from` on whose code their card does not offer.
func (r *ChargeRepository) ServicesOffCard(ctx context.Context, organizationID string, from time.Time) ([]billingports.ServiceUse, error) {
	var out []billingports.ServiceUse
	err := r.run.Query(ctx, servicesOffCardSQL, func(rows *sql.Rows) error {
		var u billingports.ServiceUse
		err := rows.Scan(&u.Code, &u.Count)
		out = append(out, u)
		return err
	}, organizationID, from)
	return out, postgres.DBErr(err)
}

// rewindCatchUpSQL takes the catch-up's watermark of organization $1 back
// to $2.
const rewindCatchUpSQL postgres.SQLUpdate = `UPDATE billing_catch_up SET through = least(through, $2) WHERE organization_id = $1`
