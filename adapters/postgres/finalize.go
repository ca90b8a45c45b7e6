package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/ports"
)

// Finalizing a batch of periods (BillingPeriodRepository.Finalize) is a
// few statements whatever the batch's size: the keys of each year from one
// counter update, then the invoices, their items, the periods finalized and
// the next ones opened, each one statement over arrays.
const (
	// nextKeysSQL takes the next $4 numbers of year $1: above both the
	// counter and the highest key of that year stored (fixture invoices
	// count); it returns the last of them. The counter's row lock, held
	// until commit, keeps keys gapless and in finalization order across
	// replicas.
	nextKeysSQL = `INSERT INTO billing_key_counters AS k (year, last)
VALUES ($1, ` + storedKeySQL + ` + $4::int)
ON CONFLICT (year) DO UPDATE SET last = greatest(k.last, EXCLUDED.last - $4::int) + $4::int
RETURNING last`

	// storedKeySQL is the number of the highest key stored of the year
	// whose keys $2 and $3 bound, fixture invoices included; 0 when none.
	storedKeySQL = `coalesce((SELECT substr(key, 10)::int FROM invoices
	WHERE key COLLATE "C" >= $2 AND key COLLATE "C" < $3 AND key ~ '^INV-[0-9]{4}-[0-9]{6}$'
	ORDER BY key COLLATE "C" DESC LIMIT 1), 0)`

	// nextKeySQL is the number year $1's next key would take: above both
	// the counter and the highest key stored.
	nextKeySQL = `SELECT greatest(coalesce((SELECT last FROM billing_key_counters WHERE year = $1), 0), ` + storedKeySQL + `) + 1`

	// claimKeysSQL moves year $1's counter from $4 (the last key taken, as
	// a plan saw it) to $4 + $5, and returns a row, only when $4 is still
	// the last key taken and the keys stored of that year above $4 are
	// the $5 the transaction wrote ($6 to $7): none is a fixture's. The row
	// stays locked until commit, like nextKeysSQL's.
	claimKeysSQL = `INSERT INTO billing_key_counters AS k (year, last)
SELECT $1, $4::int + $5::int
WHERE ` + storedKeySQL + ` = $4::int + $5::int
	AND (SELECT count(*) FROM invoices WHERE key COLLATE "C" BETWEEN $6 AND $7) = $5::int
ON CONFLICT (year) DO UPDATE SET last = EXCLUDED.last WHERE k.last = $4::int
RETURNING last`

	// insertBilledInvoicesSQL writes finalized invoices and returns them as
	// stored, for invoice.finalized.
	insertBilledInvoicesSQL = `INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency,
	total_amount, search_text, created_at, updated_at)
SELECT v.id, v.organization_id, v.key, 'unpaid', v.name, v.notes, v.due_date, 'USD', v.total_amount, v.search_text, v.at, v.at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::bigint[], $8::text[], $9::timestamptz[])
	AS v(id, organization_id, key, name, notes, due_date, total_amount, search_text, at)
RETURNING id, key, status, name, notes, due_date, currency, total_amount, created_at, updated_at, organization_id`

	// insertBilledItemsSQL writes their items, each ID its invoice's and
	// its position.
	insertBilledItemsSQL = `INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost)
SELECT v.invoice_id || '_' || v.position, v.invoice_id, v.position, v.title, v.description, v.quantity::numeric, v.unit_cost, v.total_cost
FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
	AS v(invoice_id, position, title, description, quantity, unit_cost, total_cost)
RETURNING invoice_id, id, position, title, description, quantity, unit_cost, total_cost`

	// finalizePeriodsSQL ends the open periods; the guard on status makes a
	// second finalization of a period change nothing (the caller counts).
	finalizePeriodsSQL = `UPDATE billing_periods p SET status = 'finalized', ends_at = v.ends_at, finalized_at = v.at,
	invoice_key = nullif(v.key, '')
FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[], $5::text[])
	AS v(organization_id, starts_at, ends_at, at, key)
WHERE p.organization_id = v.organization_id AND p.starts_at = v.starts_at AND p.status = 'open'`

	openNextPeriodsSQL = `INSERT INTO billing_periods (organization_id, starts_at, ends_at, invoice_id, status)
SELECT v.organization_id, v.starts_at, v.ends_at, v.invoice_id, 'open'
FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::text[]) AS v(organization_id, starts_at, ends_at, invoice_id)`
)

// Finalize carries out a batch of finalizations (see the port).
func (r *BillingPeriodRepository) Finalize(ctx context.Context, fs []ports.Finalization, plan ports.KeyPlan) ([]ports.FinalizedInvoice, error) {
	out := make([]ports.FinalizedInvoice, len(fs))
	for i, f := range fs {
		out[i] = ports.FinalizedInvoice{OrganizationID: f.Period.OrganizationID, InvoiceID: f.Period.InvoiceID,
			Period: billing.Period{Start: f.Period.Period.Start, End: f.End}}
		if f.Invoice != nil {
			out[i].TotalAmount, out[i].Lines = f.Invoice.TotalAmount, len(f.Invoice.Lines)
		}
	}
	if plan.First > 0 {
		n := 0
		for i, f := range fs {
			if f.Invoice == nil {
				continue
			}
			if y := f.Invoice.FinalizedAt.UTC().Year(); y != plan.Year {
				return nil, fmt.Errorf("finalize: an invoice of %d in a plan of %d", y, plan.Year)
			}
			out[i].Key = billing.FormatKey(plan.Year, plan.First+n)
			n++
		}
	} else if err := r.takeKeys(ctx, fs, out); err != nil { // the counters' locks held from here to the commit
		return nil, err
	}
	if err := r.insertInvoices(ctx, fs, out); err != nil {
		return nil, err
	}
	var orgs, starts, ends, ats, keys, nextEnds, nextIDs []string
	for i, f := range fs {
		at := f.End
		if f.Invoice != nil {
			at = f.Invoice.FinalizedAt
		}
		orgs, starts, ends = append(orgs, f.Period.OrganizationID), append(starts, pgTime(f.Period.Period.Start)), append(ends, pgTime(f.End))
		ats, keys = append(ats, pgTime(at)), append(keys, out[i].Key)
		nextEnds, nextIDs = append(nextEnds, pgTime(f.NextEnd)), append(nextIDs, f.NextInvoiceID)
	}
	n, err := r.run.exec(ctx, finalizePeriodsSQL, pgArray(orgs), pgArray(starts), pgArray(ends), pgArray(ats), pgArray(keys))
	if err != nil {
		return nil, dbErr(err)
	}
	if int(n) != len(fs) {
		return nil, fmt.Errorf("%d of %d periods to finalize are no longer open: %w", len(fs)-int(n), len(fs), domain.ErrConflict)
	}
	if _, err := r.run.exec(ctx, openNextPeriodsSQL, pgArray(orgs), pgArray(ends), pgArray(nextEnds), pgArray(nextIDs)); err != nil {
		return nil, dbErr(err)
	}
	return out, nil
}

// NextKey is the number the year's next key would take (see the port).
func (r *BillingPeriodRepository) NextKey(ctx context.Context, year int) (int, error) {
	var next int
	err := r.run.query(ctx, nextKeySQL, func(rows *sql.Rows) error { return rows.Scan(&next) },
		int64(year), fmt.Sprintf("INV-%04d-", year), fmt.Sprintf("INV-%04d.", year))
	return next, dbErr(err)
}

// ClaimKeys claims the keys of a plan (see the port).
func (r *BillingPeriodRepository) ClaimKeys(ctx context.Context, plan ports.KeyPlan, n int) (bool, error) {
	claimed := false
	err := r.run.query(ctx, claimKeysSQL, func(*sql.Rows) error { claimed = true; return nil },
		int64(plan.Year), fmt.Sprintf("INV-%04d-", plan.Year), fmt.Sprintf("INV-%04d.", plan.Year), plan.First-1, n,
		billing.FormatKey(plan.Year, plan.First), billing.FormatKey(plan.Year, plan.First+n-1))
	return claimed, dbErr(err)
}

// takeKeys gives each invoice of fs the next key of its finalization year,
// in fs's order: one counter update per year of the batch.
func (r *BillingPeriodRepository) takeKeys(ctx context.Context, fs []ports.Finalization, out []ports.FinalizedInvoice) error {
	byYear := map[int][]int{} // year → positions in fs
	var years []int
	for i, f := range fs {
		if f.Invoice == nil {
			continue
		}
		y := f.Invoice.FinalizedAt.UTC().Year()
		if _, ok := byYear[y]; !ok {
			years = append(years, y)
		}
		byYear[y] = append(byYear[y], i)
	}
	slices.Sort(years) // counters locked in one order by every batch
	for _, y := range years {
		at := byYear[y]
		var last int
		if err := r.run.query(ctx, nextKeysSQL, func(rows *sql.Rows) error { return rows.Scan(&last) },
			int64(y), fmt.Sprintf("INV-%04d-", y), fmt.Sprintf("INV-%04d.", y), len(at)); err != nil {
			return dbErr(err)
		}
		for j, i := range at {
			out[i].Key = billing.FormatKey(y, last-len(at)+1+j)
		}
	}
	return nil
}

// insertInvoices writes the invoices of fs and their items, and reads
// them back as stored into out.
func (r *BillingPeriodRepository) insertInvoices(ctx context.Context, fs []ports.Finalization, out []ports.FinalizedInvoice) error {
	var ids, orgs, keys, names, notes, dues, searches, ats []string
	var itemInvoices, titles, descs, qty []string
	var pos, costs, lineTotals, totals []int64
	at := map[string]int{} // invoice ID → position in fs
	for i, f := range fs {
		inv := f.Invoice
		if inv == nil {
			continue
		}
		at[inv.ID] = i
		parts := []string{inv.ID, out[i].Key, inv.Name, inv.Notes}
		for j, l := range inv.Lines {
			parts = append(parts, l.Title, l.Description)
			q, err := domain.QuantityFromMilli(l.Milli)
			if err != nil {
				return err
			}
			itemInvoices, pos, titles, descs = append(itemInvoices, inv.ID), append(pos, int64(j)), append(titles, l.Title), append(descs, l.Description)
			qty, costs, lineTotals = append(qty, q.String()), append(costs, l.UnitCost), append(lineTotals, l.Total)
		}
		ids, orgs, keys, names, notes = append(ids, inv.ID), append(orgs, inv.OrganizationID), append(keys, out[i].Key), append(names, inv.Name), append(notes, inv.Notes)
		dues, totals = append(dues, pgTime(inv.DueDate)), append(totals, inv.TotalAmount)
		searches = append(searches, strings.ToLower(strings.Join(parts, "\n"))) // as invoiceSearchText
		ats = append(ats, pgTime(inv.FinalizedAt))
	}
	if len(ids) == 0 {
		return nil
	}
	read := make([]invoiceWithItems, len(fs))
	err := r.run.query(ctx, insertBilledInvoicesSQL, func(rows *sql.Rows) error {
		var org string
		row, err := scanInvoice(rows, "", &org)
		if err != nil {
			return err
		}
		row.OrganizationID = org
		read[at[row.ID]].row = row
		return nil
	}, pgArray(ids), pgArray(orgs), pgArray(keys), pgArray(names), pgArray(notes), pgArray(dues), pgArray(totals),
		pgArray(searches), pgArray(ats))
	if err != nil {
		return fmt.Errorf("insert invoices: %w", dbErr(err))
	}
	if len(itemInvoices) > 0 {
		err = r.run.query(ctx, insertBilledItemsSQL, func(rows *sql.Rows) error {
			var it invoiceItemRow
			if err := rows.Scan(&it.InvoiceID, &it.ID, &it.Position, &it.Title, &it.Description, &it.Quantity, &it.UnitCost, &it.TotalCost); err != nil {
				return err
			}
			i := at[it.InvoiceID]
			read[i].items = append(read[i].items, it)
			return nil
		}, pgArray(itemInvoices), pgArray(pos), pgArray(titles), pgArray(descs), pgArray(qty), pgArray(costs), pgArray(lineTotals))
		if err != nil {
			return fmt.Errorf("insert invoice items: %w", dbErr(err))
		}
	}
	for i := range fs {
		if fs[i].Invoice == nil {
			continue
		}
		slices.SortFunc(read[i].items, func(a, b invoiceItemRow) int { return a.Position - b.Position })
		inv, err := invoiceFromRows(read[i].row, read[i].items)
		if err != nil {
			return fmt.Errorf("read invoice %s: %w", fs[i].Invoice.ID, err)
		}
		out[i].Invoice = inv
	}
	return nil
}
