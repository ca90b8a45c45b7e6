package billing

import (
	"context"
	"database/sql"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// ChargeRepository implements billingports.ChargeRepository.
type ChargeRepository struct {
	run      postgres.Runner
	settings postgres.BillingSettings
}

var _ billingports.ChargeRepository = (*ChargeRepository)(nil)

// The accruals. Each inserts the charges of its facts in one statement,
// once per (fact, fee) by the unique key of billing_charges, on the
// organization's open period.
//
// The one place each kind of fact is priced (docs/billing.md, "Facts and
// charges"): which facts; which fees, what quantity and which title, each
// from the domain's tariff (feeRows, tariff_sql.go); at the card in force
// when the fact happened (cardAt), its price of the fee (priceOf). A fact
// yields a charge row per fee even when the card prices it at 0 (the
// invoice leaves such lines out), so that "a fact without a charge" means
// "not accrued yet". Each kind's accrual of one fact (the fact's own path)
// and its catch-up (a billing run's, for the facts of open periods without
// a charge) are its pricing with their own choice of facts (where) and, for
// the catch-up, the lock of the periods it inserts into. $1 is the
// 'sandbox charges tests' flag.
//
// A charge goes on the organization's open period (p). A fact dated
// before the period's start — a shipment whose ship raced a close or the
// month's end, and committed after the period was finalized — is a late
// fact: charged on the open invoice, dated the period's start, its line
// naming the month it was for ($3 is the billing time zone). Receipts and
// services dated into a closed period are refused before (PeriodClosed),
// so only shipments are ever late.
func shipmentCharges(where, lock string) string {
	return `INSERT INTO billing_charges (organization_id, fee, source_id, warehouse_id, title, for_period, quantity_milli, divisor, unit_cost, occurred_at)
SELECT s.organization_id, f.fee, s.id, s.warehouse_id, f.title, ` + lateFor("s.shipped_at") + `, f.qty * 1000, 1, ` + priceOf("f.fee") + `,
	greatest(s.shipped_at, p.starts_at)
FROM billing_periods p
JOIN shipments s ON s.organization_id = p.organization_id AND s.status = 'shipped'
JOIN LATERAL (` + cardAt("s.shipped_at") + `) rc ON true
CROSS JOIN LATERAL (SELECT coalesce(sum(quantity), 0) FROM shipment_items i WHERE i.shipment_id = s.id) units(n)
CROSS JOIN LATERAL (SELECT coalesce(sum(quantity), 0) FROM shipment_cartons c WHERE c.shipment_id = s.id) cartons(n)
CROSS JOIN LATERAL (VALUES ` + feeRows(billing.Shipped) + `) f(fee, title, qty)
WHERE p.status = 'open' AND f.qty > 0 AND (NOT s.test OR $1) AND ` + where + lock + `
ON CONFLICT (organization_id, fee, source_id) DO NOTHING`
}

func receiptCharges(where, lock string) string {
	return `INSERT INTO billing_charges (organization_id, fee, source_id, warehouse_id, title, for_period, quantity_milli, divisor, unit_cost, occurred_at)
SELECT r.organization_id, f.fee, r.id, r.warehouse_id, f.title, ` + lateFor("r.received_at") + `, f.qty * 1000, 1, ` + priceOf("f.fee") + `,
	greatest(r.received_at, p.starts_at)
FROM billing_periods p
JOIN warehouse_receipts r ON r.organization_id = p.organization_id
JOIN LATERAL (` + cardAt("r.received_at") + `) rc ON true
CROSS JOIN LATERAL (SELECT coalesce(sum(quantity) FILTER (WHERE product_id IS NOT NULL), 0),
	coalesce(sum(quantity) FILTER (WHERE carton_id IS NOT NULL), 0)
	FROM warehouse_receipt_lines l WHERE l.receipt_id = r.id) q(units, cartons)
CROSS JOIN LATERAL (VALUES ` + feeRows(billing.Received) + `) f(fee, title, qty)
WHERE p.status = 'open' AND f.qty > 0 AND $1::boolean IS NOT NULL AND ` + where + lock + `
ON CONFLICT (organization_id, fee, source_id) DO NOTHING`
}

// serviceCharges: a service is priced and titled by its card's entry.
func serviceCharges(where, lock string) string {
	return `INSERT INTO billing_charges (organization_id, fee, source_id, warehouse_id, title, for_period, quantity_milli, divisor, unit_cost, occurred_at)
SELECT v.organization_id, '` + string(billing.FeeService) + `', v.id, v.warehouse_id, rc.services -> v.service ->> 'title', ` + lateFor("v.performed_at") + `,
	v.quantity_milli, 1, (rc.services -> v.service ->> 'unitCost')::bigint, greatest(v.performed_at, p.starts_at)
FROM billing_periods p
JOIN warehouse_services v ON v.organization_id = p.organization_id
JOIN LATERAL (` + cardAt("v.performed_at") + `) rc ON true
WHERE p.status = 'open' AND rc.services ? v.service AND $1::boolean IS NOT NULL AND ` + where + lock + `
ON CONFLICT (organization_id, fee, source_id) DO NOTHING`
}

// cardAt is the organization's (p's) card in force at the instant at.
func cardAt(at string) string {
	return `SELECT * FROM rate_cards rc WHERE rc.organization_id = p.organization_id AND rc.effective_at <= ` + at + `
	ORDER BY rc.effective_at DESC LIMIT 1`
}

// lateFor is the month a fact dated at `at` was for when it is late (before
// the open period p), else the empty string: as billing.Calendar's
// ClosedName, the month, or the days of it before p when a close ended that
// month's period early ("December 1–7, 2026"), never p's own month.
func lateFor(at string) string {
	const last = `((p.starts_at - interval '1 microsecond') AT TIME ZONE $3)`
	return `CASE WHEN ` + at + ` >= p.starts_at THEN ''
	WHEN date_trunc('month', p.starts_at AT TIME ZONE $3) < p.starts_at AT TIME ZONE $3
		AND date_trunc('month', ` + at + ` AT TIME ZONE $3) = date_trunc('month', p.starts_at AT TIME ZONE $3)
	THEN to_char(` + last + `, 'FMMonth') || ' 1' || CASE WHEN extract(day FROM ` + last + `) > 1 THEN '–' || to_char(` + last + `, 'FMDD') ELSE '' END
		|| ', ' || to_char(` + last + `, 'YYYY')
	ELSE to_char(` + at + ` AT TIME ZONE $3, 'FMMonth YYYY') END`
}

// notCharged keeps, for a catch-up, the facts of the organizations $2 (an
// array, whose billing locks the caller holds exclusively) that have no
// charge of the fees (a list for IN) yet: every fee of their kind of fact,
// as one statement inserts a fact's charges of all of them at once.
func notCharged(fact, id, fees string) string {
	return `p.organization_id = ANY($2::text[]) AND NOT EXISTS (SELECT 1 FROM billing_charges c
	WHERE c.organization_id = ` + fact + `.organization_id AND c.fee IN (` + fees + `) AND c.source_id = ` + id + `)`
}

var (
	// accrueShipmentSQL: the ship path runs it under its organization's
	// billing lock taken shared (shareShipmentBillingSQL, the statement
	// before), so the open period it reads is one no finalization can end
	// before the ship commits. A ship moves stock: dated into days whose
	// storage is accrued already, it takes that storage back
	// (rewindStorage), whether or not it is charged.
	accrueShipmentSQL = postgres.SQLSelect(`WITH moved AS (
	SELECT organization_id, shipped_at AS occurred_at FROM shipments WHERE id = $2 AND status = 'shipped'),
inserted AS (` + shipmentCharges("s.id = $2", "") + `
RETURNING fee)
, ` + rewindStorage("moved"))

	// catchUpShipmentsSQL reads the shipments (the bulk of the facts) from
	// the catch-up's watermark on: those of an open period shipped before
	// billing_catch_up.through were looked at by an earlier catch-up of the
	// same period, so it reads a range of shipments_shipped_idx instead of
	// the whole period's. The watermark trails the clock by BILLING_GRACE,
	// so a shipment committed late is still looked at. The bound is a
	// scalar subquery, so that it is an index condition of the shipments'
	// scan (a join with billing_catch_up made the planner scan every
	// shipment).
	catchUpShipmentsSQL = postgres.SQLInsert(shipmentCharges(`s.shipped_at >= greatest(p.starts_at, (SELECT w.through FROM billing_catch_up w
	WHERE w.organization_id = p.organization_id AND w.starts_at = p.starts_at)) AND `+
		notCharged("s", "s.id", feesOf(billing.Shipped)), "") + `
RETURNING fee`)

	// accrueReceiptSQL: a receipt dated into days whose storage is accrued
	// already changes their on hand, so the same statement takes that
	// storage back (rewindStorage). Receipts and services are dated by the
	// warehouse, anywhere in the open period: their catch-ups read the
	// whole period (few per month).
	accrueReceiptSQL = postgres.SQLSelect(`WITH inserted AS (` + receiptCharges("r.id = $2", "") + `
RETURNING fee, organization_id, occurred_at)
, ` + rewindStorage("inserted"))
	catchUpReceiptsSQL = postgres.SQLSelect(`WITH inserted AS (` + receiptCharges("r.received_at >= p.starts_at AND "+
		notCharged("r", "r.id", feesOf(billing.Received)), "") + `
RETURNING fee, organization_id, occurred_at)
, ` + rewindStorage("inserted"))

	accrueServiceSQL   = postgres.SQLInsert(serviceCharges("v.id = $2", "") + "\nRETURNING fee")
	catchUpServicesSQL = postgres.SQLInsert(serviceCharges("v.performed_at >= p.starts_at AND "+notCharged("v", "v.id", quote(string(billing.FeeService))), "") + "\nRETURNING fee")
)

// rewindStorage ends the statements of facts that move stock (the rest of
// a WITH that defines inserted): the storage of the days from the first
// movement of each organization in the CTE
// moved on (its rows: organization_id, occurred_at) is taken back, when
// accrued already: the watermark goes back to the day before, and the open
// storage charges from that day on are deleted, for the next storage
// accrual to recompute them from the ledger ($3 is the billing time zone).
// Under the organization's billing lock (shared here, exclusive in the
// storage accrual), either the accrual saw the movement or this statement
// sees the accrual: a day's storage never misses a movement, whatever
// order they commit in.
func rewindStorage(moved string) string {
	return `rewound AS (
	UPDATE billing_storage b SET accrued_through = x.day - 1
	FROM (SELECT organization_id, min((occurred_at AT TIME ZONE $3)::date) AS day FROM ` + moved + ` GROUP BY organization_id) x
	WHERE b.organization_id = x.organization_id AND x.day <= b.accrued_through
	RETURNING b.organization_id, x.day),
forgotten AS (
	DELETE FROM billing_charges c USING rewound w
	WHERE c.organization_id = w.organization_id AND c.fee IN (` + feesOf(billing.StorageDay) + `)
		AND c.occurred_at >= (w.day::timestamp AT TIME ZONE $3) AND c.occurred_at >= ` + openStart + `)
SELECT fee FROM inserted`
}

// openStart is the start of the organization's open period, of the
// charge c: a charge belongs to the period that holds its time, so the
// open charges are those from it on (a finalized period's are never
// touched, nor marked: "billed" is the period's status).
const openStart = `(SELECT op.starts_at FROM billing_periods op WHERE op.organization_id = c.organization_id AND op.status = 'open')`

// addOperatorChargeSQL records an operator's charge once per reference.
const addOperatorChargeSQL postgres.SQLInsert = `INSERT INTO billing_charges (organization_id, fee, source_id, title, description, for_period,
	quantity_milli, divisor, unit_cost, occurred_at)
VALUES ($1, 'operator', $2, $3, $4, $5, $6, 1, $7, $8)
ON CONFLICT (organization_id, fee, source_id) DO NOTHING`

// The organizations' billing locks (docs/billing.md, "One lock order"):
// transaction-level advisory locks of class billingLockClass keyed by
// hashtext(organization ID) — two organizations sharing a key only wait
// for each other. A fact's accrual takes its organization's shared, in a
// statement before its own, so that its own statement's snapshot is taken
// once no finalization, storage accrual or repricing of the organization
// is under way: these take it exclusively, several organizations always in
// key order.
const (
	shareShipmentBillingSQL postgres.SQLSelect = `SELECT pg_advisory_xact_lock_shared(8042002, hashtext(organization_id)) FROM shipments WHERE id = $1`
	shareReceiptBillingSQL  postgres.SQLSelect = `SELECT pg_advisory_xact_lock_shared(8042002, hashtext(organization_id)) FROM warehouse_receipts WHERE id = $1`
	shareServiceBillingSQL  postgres.SQLSelect = `SELECT pg_advisory_xact_lock_shared(8042002, hashtext(organization_id)) FROM warehouse_services WHERE id = $1`
	shareBillingSQL         postgres.SQLSelect = `SELECT pg_advisory_xact_lock_shared(8042002, hashtext($1))`
	lockBillingSQL          postgres.SQLSelect = `SELECT pg_advisory_xact_lock(8042002, k) FROM (SELECT DISTINCT hashtext(o) AS k FROM unnest($1::text[]) o ORDER BY 1) keys`
	// tryLockBillingSQL takes the billing locks of the organizations $1
	// that are free now, exclusively, and returns those organizations: it
	// never waits, so a batch that holds some organizations' locks never
	// waits for another's (docs/billing.md, "One organization never holds
	// up another").
	tryLockBillingSQL postgres.SQLSelect = `SELECT o FROM unnest($1::text[]) o WHERE pg_try_advisory_xact_lock(8042002, hashtext(o))`
)

// accrue runs an accrual and counts what it inserted by fee.
func (r *ChargeRepository) accrue(ctx context.Context, q postgres.Statement, args ...any) (map[billing.Fee]int, error) {
	out := map[billing.Fee]int{}
	err := r.run.Query(ctx, q, func(rows *sql.Rows) error {
		var fee string
		if err := rows.Scan(&fee); err != nil {
			return err
		}
		out[billing.Fee(fee)]++
		return nil
	}, args...)
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	return out, nil
}

// AccrueShipment accrues a shipped shipment's charges.
func (r *ChargeRepository) AccrueShipment(ctx context.Context, shipmentID string) (map[billing.Fee]int, error) {
	if err := r.run.Lock(ctx, shareShipmentBillingSQL, shipmentID); err != nil {
		return nil, err
	}
	return r.accrue(ctx, accrueShipmentSQL, r.settings.ChargeTestShipments, shipmentID, r.settings.Zone())
}

// AccrueReceipt accrues a receipt's charges.
func (r *ChargeRepository) AccrueReceipt(ctx context.Context, receiptID string) (map[billing.Fee]int, error) {
	if err := r.run.Lock(ctx, shareReceiptBillingSQL, receiptID); err != nil {
		return nil, err
	}
	return r.accrue(ctx, accrueReceiptSQL, r.settings.ChargeTestShipments, receiptID, r.settings.Zone())
}

// AccrueService accrues a service's charge.
func (r *ChargeRepository) AccrueService(ctx context.Context, serviceID string) (map[billing.Fee]int, error) {
	if err := r.run.Lock(ctx, shareServiceBillingSQL, serviceID); err != nil {
		return nil, err
	}
	return r.accrue(ctx, accrueServiceSQL, r.settings.ChargeTestShipments, serviceID, r.settings.Zone())
}

// moveCatchUpSQL moves the watermark of the open periods of the
// organizations $1 (an array) to $2 once the catch-up has looked at their
// facts (under their billing locks: catch-ups of one organization never
// move it at once). A period opened since starts its own.
const moveCatchUpSQL postgres.SQLInsert = `INSERT INTO billing_catch_up AS w (organization_id, starts_at, through)
SELECT organization_id, starts_at, $2 FROM billing_periods WHERE status = 'open' AND organization_id = ANY($1::text[]) AND starts_at < $2
ON CONFLICT (organization_id) DO UPDATE SET starts_at = EXCLUDED.starts_at,
	through = CASE WHEN w.starts_at = EXCLUDED.starts_at THEN greatest(w.through, EXCLUDED.through) ELSE EXCLUDED.through END
WHERE w.starts_at <> EXCLUDED.starts_at OR w.through < EXCLUDED.through`

// CatchUp accrues the organizations' facts without a charge yet, those
// dated from the watermark on, and moves the watermark to through. The
// caller holds their billing locks exclusively: no finalization of theirs
// runs meanwhile, and no other catch-up of theirs.
func (r *ChargeRepository) CatchUp(ctx context.Context, organizationIDs []string, through time.Time) (map[billing.Fee]int, error) {
	total := map[billing.Fee]int{}
	if len(organizationIDs) == 0 {
		return total, nil
	}
	orgs := postgres.Array(organizationIDs)
	for _, q := range []postgres.Statement{catchUpShipmentsSQL, catchUpReceiptsSQL, catchUpServicesSQL} {
		n, err := r.accrue(ctx, q, r.settings.ChargeTestShipments, orgs, r.settings.Zone())
		if err != nil {
			return nil, err
		}
		for f, c := range n {
			total[f] += c
		}
	}
	if _, err := r.run.Exec(ctx, moveCatchUpSQL, orgs, through); err != nil {
		return nil, postgres.DBErr(err)
	}
	return total, nil
}

// AddOperatorCharge records an operator's charge once per reference.
func (r *ChargeRepository) AddOperatorCharge(ctx context.Context, c billingports.OperatorCharge) (bool, error) {
	n, err := r.run.Exec(ctx, addOperatorChargeSQL, c.OrganizationID, c.Reference, c.Title, c.Description, c.ForPeriod,
		c.QuantityMilli, c.UnitCost, c.OccurredAt)
	return n == 1, postgres.DBErr(err)
}
