package billing

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// The reads of ChargeRepository (charges.go): the sums of a billing run's
// windows, and the charges behind an invoice.

// sumsSQL sums the charges of each window by line, numbered by the
// window's position ($1, $5): the whole UTC days of a window from the
// running totals of billing_charge_days ($2 the organizations, $3 the
// first days, $4 the days after the last), the partial days at its ends
// from the charges themselves ($6 the organizations, $7 and $8 the
// ranges). A line whose facts sum to 0 (its charges deleted) has none.
//
// The sums are numeric (sum of bigint), read as bigint only once bounded by
// int64's largest: a line's thousandths summed past it (9.2 × 10^15 units,
// beyond anything the bounds accept: docs/billing.md, "Bounds") are read as
// that much, and billing.Lines cuts the line to the invoice's ceiling,
// rather than the statement failing with "bigint out of range" and the
// period never being finalized.
//
// The partial days' charges are read per window by a LATERAL subquery
// that OFFSET 0 keeps from being flattened into a join: each window is then
// a range of billing_charges_time_idx. Joined, the generic plan hashed the
// windows and scanned every charge of the table, even for a preview with
// no partial day (figures: docs/benchmarks/console.md).
const sumsSQL postgres.SQLSelect = `SELECT n, fee, title, unit_cost, warehouse_id, divisor,
	least(sum(q), 9223372036854775807)::bigint, least(sum(k), 9223372036854775807)::bigint, description, for_period
FROM (
	SELECT w.n, d.fee, d.title, d.unit_cost, d.warehouse_id, d.divisor, d.quantity_milli AS q, d.facts AS k, d.description, d.for_period
	FROM unnest($1::int[], $2::text[], $3::date[], $4::date[]) AS w(n, organization_id, first_day, end_day)
	JOIN billing_charge_days d ON d.organization_id = w.organization_id AND d.day >= w.first_day AND d.day < w.end_day
	UNION ALL
	SELECT w.n, c.fee, c.title, c.unit_cost, c.warehouse_id, c.divisor, c.quantity_milli, 1, c.description, c.for_period
	FROM unnest($5::int[], $6::text[], $7::timestamptz[], $8::timestamptz[]) AS w(n, organization_id, starts_at, ends_at)
	CROSS JOIN LATERAL (SELECT * FROM billing_charges c
		WHERE c.organization_id = w.organization_id AND c.occurred_at >= w.starts_at AND c.occurred_at < w.ends_at OFFSET 0) c
) s
GROUP BY n, fee, title, unit_cost, warehouse_id, divisor, description, for_period
HAVING sum(k) <> 0`

// Sums sums each window's charges by line.
func (r *ChargeRepository) Sums(ctx context.Context, windows []billingports.Window) ([][]billing.Sum, error) {
	var days, raw windowPieces
	for i, w := range windows {
		first, end := utcDay(w.Start), utcDay(w.End)
		if first.Before(w.Start) {
			first = first.AddDate(0, 0, 1)
		}
		if !first.Before(end) { // no whole UTC day: every charge from the table
			raw.add(i+1, w.OrganizationID, pgTime(w.Start), pgTime(w.End))
			continue
		}
		days.add(i+1, w.OrganizationID, first.Format(time.DateOnly), end.Format(time.DateOnly))
		if w.Start.Before(first) {
			raw.add(i+1, w.OrganizationID, pgTime(w.Start), pgTime(first))
		}
		if end.Before(w.End) {
			raw.add(i+1, w.OrganizationID, pgTime(end), pgTime(w.End))
		}
	}
	out := make([][]billing.Sum, len(windows))
	err := r.run.Query(ctx, sumsSQL, func(rows *sql.Rows) error {
		var s billing.Sum
		var n int
		var fee string
		if err := rows.Scan(&n, &fee, &s.Title, &s.UnitCost, &s.WarehouseID, &s.Divisor, &s.Milli, &s.Facts,
			&s.Description, &s.ForPeriod); err != nil {
			return err
		}
		s.Fee = billing.Fee(fee)
		out[n-1] = append(out[n-1], s)
		return nil
	}, days.args(raw)...)
	return out, postgres.DBErr(err)
}

// operatorChargeSQL reads the operator's charge of a reference.
const operatorChargeSQL postgres.SQLSelect = `SELECT title, description, for_period, quantity_milli, unit_cost, occurred_at
FROM billing_charges WHERE organization_id = $1 AND fee = 'operator' AND source_id = $2`

// OperatorCharge reads the operator's charge of a reference (see the port).
func (r *ChargeRepository) OperatorCharge(ctx context.Context, organizationID, reference string) (billingports.OperatorCharge, error) {
	c := billingports.OperatorCharge{OrganizationID: organizationID, Reference: reference}
	found := false
	err := r.run.Query(ctx, operatorChargeSQL, func(rows *sql.Rows) error {
		found = true
		return rows.Scan(&c.Title, &c.Description, &c.ForPeriod, &c.QuantityMilli, &c.UnitCost, &c.OccurredAt)
	}, organizationID, reference)
	if err != nil {
		return billingports.OperatorCharge{}, postgres.DBErr(err)
	}
	if !found {
		return billingports.OperatorCharge{}, domain.ErrNotFound
	}
	return c, nil
}

// windowPieces are parts of windows passed as arrays: each the window's
// position, its organization and a range.
type windowPieces struct {
	n              []int64
	orgs, from, to []string
}

func (p *windowPieces) add(n int, org, from, to string) {
	p.n, p.orgs = append(p.n, int64(n)), append(p.orgs, org)
	p.from, p.to = append(p.from, from), append(p.to, to)
}

// args are sumsSQL's parameters: p the whole days, raw the partial ones.
func (p windowPieces) args(raw windowPieces) []any {
	return []any{postgres.Array(p.n), postgres.Array(p.orgs), postgres.Array(p.from), postgres.Array(p.to),
		postgres.Array(raw.n), postgres.Array(raw.orgs), postgres.Array(raw.from), postgres.Array(raw.to)}
}

// utcDay is the UTC midnight at or before t.
func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// windowArrays passes windows as three array parameters.
func windowArrays(windows []billingports.Window) (orgs, starts, ends string) {
	o, s, e := make([]string, len(windows)), make([]string, len(windows)), make([]string, len(windows))
	for i, w := range windows {
		o[i], s[i], e[i] = w.OrganizationID, pgTime(w.Start), pgTime(w.End)
	}
	return postgres.Array(o), postgres.Array(s), postgres.Array(e)
}

// pgTime writes an instant for a timestamptz[] parameter, to the
// microsecond PostgreSQL keeps.
func pgTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.999999Z07:00") }

// invoiceChargesSQL lists the charges of the billing period whose invoice
// is $2, of organization $1, from $3 on, at most $4 (NULL: all), naming
// each one's fact; $5 is the billing time zone. The period's bounds are
// scalar subqueries, not a join, so that they bound the scan of
// billing_charges_time_idx: joined, the prepared statement's generic plan
// walked every charge of the organization in time order and filtered on
// the period. The page is cut before the joins, so that the rows skipped
// are read from the index alone (figures: docs/benchmarks/console.md).
var invoiceChargesSQL = postgres.SQLSelect(`SELECT c.id, CASE WHEN c.fee = 'service' THEN coalesce(v.service, c.fee) ELSE c.fee END,
	c.title, c.quantity_milli, c.unit_cost, c.occurred_at, c.warehouse_id,
	` + sourceTypes + `,
	CASE WHEN c.fee IN (` + feesOf(billing.Received) + `) THEN coalesce(r.reference, c.source_id)
		WHEN c.fee = 'service' THEN coalesce(v.reference, c.source_id)
		WHEN c.fee IN (` + feesOf(billing.StorageDay) + `) THEN split_part(c.source_id, '@', 2)
		WHEN c.fee IN ('minimum', 'credit_forward') THEN to_char(c.occurred_at AT TIME ZONE $5, 'YYYY-MM')
		ELSE c.source_id END
FROM (SELECT * FROM billing_charges c
	WHERE c.organization_id = $1 AND c.unit_cost <> 0
		AND c.occurred_at >= (SELECT p.starts_at FROM billing_periods p WHERE p.organization_id = $1 AND p.invoice_id = $2)
		AND c.occurred_at < (SELECT p.ends_at FROM billing_periods p WHERE p.organization_id = $1 AND p.invoice_id = $2)
	ORDER BY c.occurred_at, c.id
	OFFSET $3 LIMIT $4) c
LEFT JOIN warehouse_receipts r ON c.fee IN (` + feesOf(billing.Received) + `) AND r.id = c.source_id
LEFT JOIN warehouse_services v ON c.fee = 'service' AND v.id = c.source_id
ORDER BY c.occurred_at, c.id`)

// sourceTypes is the source type of a charge c (ports.InvoiceCharge): the
// fact its fee prices (the tariff's fees of a shipment, a receipt, a day
// of storage), else its fee (service, operator, minimum, credit_forward).
var sourceTypes = func() string {
	var b strings.Builder
	for i, fact := range billing.AccruedFacts {
		if i == 0 {
			b.WriteString("CASE ")
		} else {
			b.WriteString("\n\t\t")
		}
		b.WriteString("WHEN c.fee IN (" + feesOf(fact) + ") THEN " + quote(string(fact)))
	}
	b.WriteString("\n\t\tELSE c.fee END")
	return b.String()
}()

// OfInvoice lists the charges behind an invoice (see the port).
// Every charge (Take 0, the CSV) is read by exportOfInvoice.
func (r *ChargeRepository) OfInvoice(ctx context.Context, organizationID, invoiceID string, page ports.Page, each func(invoicingports.InvoiceCharge) error) (bool, error) {
	if page.Take <= 0 {
		return false, postgres.DBErr(r.exportOfInvoice(ctx, organizationID, invoiceID, each))
	}
	n, more := 0, false
	err := r.scanCharges(ctx, r.run, organizationID, invoiceID, ports.Page{Skip: page.Skip, Take: page.Take + 1}, func(c invoicingports.InvoiceCharge) error {
		if n++; n > page.Take {
			more = true
			return nil
		}
		return each(c)
	})
	return more, postgres.DBErr(err)
}
