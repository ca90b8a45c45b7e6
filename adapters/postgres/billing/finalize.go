package billing

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// Finalizing a batch of periods (PeriodRepository.Finalize) is a
// few statements whatever the batch's size: the keys of each year from one
// counter update, then the invoices, their items, the periods finalized and
// the next ones opened, each one statement over arrays.
const (
	// nextKeysSQL takes the next $4 numbers of year $1: above both the
	// counter and the highest key of that year stored (fixture invoices
	// count); it returns the last of them. The counter's row lock, held
	// until commit, keeps keys gapless and in finalization order across
	// replicas.
	nextKeysSQL postgres.SQLInsert = `INSERT INTO billing_key_counters AS k (year, last)
VALUES ($1, ` + storedKeySQL + ` + $4::int)
ON CONFLICT (year) DO UPDATE SET last = greatest(k.last, EXCLUDED.last - $4::int) + $4::int
RETURNING last`

	// storedKeySQL is the number of the highest key stored of the year
	// whose keys $2 and $3 bound, fixture invoices included; 0 when none.
	storedKeySQL = `coalesce((SELECT substr(key, 10)::int FROM invoices
	WHERE key COLLATE "C" >= $2 AND key COLLATE "C" < $3 AND key ~ '^INV-[0-9]{4}-[0-9]{6}$'
	ORDER BY key COLLATE "C" DESC LIMIT 1), 0)`

	// insertBilledInvoicesSQL writes finalized invoices and returns them as
	// stored, for invoice.finalized: unpaid, or paid at once when nothing
	// is owed (a total of 0).
	insertBilledInvoicesSQL postgres.SQLInsert = `INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency,
	total_amount, search_text, created_at, updated_at)
SELECT v.id, v.organization_id, v.key, CASE WHEN v.total_amount = 0 THEN 'paid' ELSE 'unpaid' END, v.name, v.notes, v.due_date, 'USD', v.total_amount, v.search_text, v.at, v.at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::bigint[], $8::text[], $9::timestamptz[])
	AS v(id, organization_id, key, name, notes, due_date, total_amount, search_text, at)
RETURNING id, key, status, name, notes, due_date, currency, total_amount, created_at, updated_at, organization_id`

	// insertBilledItemsSQL writes their items, each ID its invoice's and
	// its position.
	insertBilledItemsSQL postgres.SQLInsert = `INSERT INTO invoice_items (id, invoice_id, position, title, description, quantity, unit_cost, total_cost)
SELECT v.invoice_id || '_' || v.position, v.invoice_id, v.position, v.title, v.description, v.quantity::numeric, v.unit_cost, v.total_cost
FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
	AS v(invoice_id, position, title, description, quantity, unit_cost, total_cost)
RETURNING invoice_id, id, position, title, description, quantity, unit_cost, total_cost`

	// finalizePeriodsSQL ends the open periods; the guard on status makes a
	// second finalization of a period change nothing (the caller counts).
	finalizePeriodsSQL postgres.SQLUpdate = `UPDATE billing_periods p SET status = 'finalized', ends_at = v.ends_at, finalized_at = v.at,
	invoice_key = nullif(v.key, '')
FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[], $5::text[])
	AS v(organization_id, starts_at, ends_at, at, key)
WHERE p.organization_id = v.organization_id AND p.starts_at = v.starts_at AND p.status = 'open'`

	// insertInvoiceChargesSQL writes the charges that finalizing makes (the
	// minimum's top-up, a credit carried or brought forward), so that every
	// line of an invoice is the sum of its charges; each is keyed by its
	// invoice and dated at the period's last instant.
	insertInvoiceChargesSQL postgres.SQLInsert = `INSERT INTO billing_charges (organization_id, fee, source_id, title, description,
	quantity_milli, divisor, unit_cost, occurred_at)
SELECT v.organization_id, v.fee, v.source_id, v.title, v.description, v.quantity_milli, 1, v.unit_cost, v.at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::timestamptz[])
	AS v(organization_id, fee, source_id, title, description, quantity_milli, unit_cost, at)`

	// carryCreditsSQL leaves each organization the credit its last
	// finalization carries forward.
	carryCreditsSQL postgres.SQLInsert = `INSERT INTO billing_accounts AS a (organization_id, credit_forward)
SELECT v.organization_id, v.credit FROM unnest($1::text[], $2::bigint[]) AS v(organization_id, credit)
WHERE v.credit > 0 OR EXISTS (SELECT 1 FROM billing_accounts b WHERE b.organization_id = v.organization_id)
ON CONFLICT (organization_id) DO UPDATE SET credit_forward = EXCLUDED.credit_forward WHERE a.credit_forward <> EXCLUDED.credit_forward`

	// openNextPeriodsSQL opens the next periods: one opened ahead during
	// the grace (status 'next', its invoice ID already shown by a preview)
	// becomes the open one.
	openNextPeriodsSQL postgres.SQLInsert = `INSERT INTO billing_periods AS p (organization_id, starts_at, ends_at, invoice_id, status)
SELECT v.organization_id, v.starts_at, v.ends_at, v.invoice_id, 'open'
FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::text[]) AS v(organization_id, starts_at, ends_at, invoice_id)
ON CONFLICT (organization_id, starts_at) DO UPDATE SET status = 'open', ends_at = EXCLUDED.ends_at WHERE p.status = 'next'`
)

// Finalize carries out a batch of finalizations (see the port).
func (r *PeriodRepository) Finalize(ctx context.Context, fs []billingports.Finalization) ([]billingports.FinalizedInvoice, error) {
	out := make([]billingports.FinalizedInvoice, len(fs))
	for i, f := range fs {
		out[i] = billingports.FinalizedInvoice{OrganizationID: f.Period.OrganizationID, InvoiceID: f.Period.InvoiceID,
			Period: billing.Period{Start: f.Period.Period.Start, End: f.End}}
		if f.Invoice != nil {
			out[i].TotalAmount, out[i].Lines = f.Invoice.TotalAmount, len(f.Invoice.Lines)
		}
	}
	if err := r.takeKeys(ctx, fs, out); err != nil { // the counters' locks held from here to the commit
		return nil, err
	}
	if err := r.insertInvoices(ctx, fs, out); err != nil {
		return nil, err
	}
	if err := r.insertInvoiceCharges(ctx, fs); err != nil {
		return nil, err
	}
	var orgs, starts, ends, ats, keys, nextEnds, nextIDs []string
	var credits []int64
	for i, f := range fs {
		orgs, starts, ends = append(orgs, f.Period.OrganizationID), append(starts, pgTime(f.Period.Period.Start)), append(ends, pgTime(f.End))
		ats, keys = append(ats, pgTime(f.At)), append(keys, out[i].Key)
		nextEnds, nextIDs = append(nextEnds, pgTime(f.NextEnd)), append(nextIDs, f.NextInvoiceID)
		credits = append(credits, f.CreditForward)
	}
	n, err := r.run.Exec(ctx, finalizePeriodsSQL, postgres.Array(orgs), postgres.Array(starts), postgres.Array(ends), postgres.Array(ats), postgres.Array(keys))
	if err != nil {
		return nil, postgres.DBErr(err)
	}
	if int(n) != len(fs) {
		return nil, fmt.Errorf("%d of %d periods to finalize are no longer open: %w", len(fs)-int(n), len(fs), domain.ErrConflict)
	}
	if _, err := r.run.Exec(ctx, openNextPeriodsSQL, postgres.Array(orgs), postgres.Array(ends), postgres.Array(nextEnds), postgres.Array(nextIDs)); err != nil {
		return nil, postgres.DBErr(err)
	}
	if _, err := r.run.Exec(ctx, carryCreditsSQL, postgres.Array(orgs), postgres.Array(credits)); err != nil {
		return nil, postgres.DBErr(err)
	}
	return out, nil
}

// LockKeys takes the counter of the year's keys and holds it until the
// transaction ends: the finalization's time is read after it (see the
// port). The same upsert as a key's, for no key.
func (r *PeriodRepository) LockKeys(ctx context.Context, year int) error {
	return postgres.DBErr(r.run.Query(ctx, nextKeysSQL, func(*sql.Rows) error { return nil },
		int64(year), fmt.Sprintf("INV-%04d-", year), fmt.Sprintf("INV-%04d.", year), 0))
}

// insertInvoiceCharges writes the charges of the lines that finalizing
// made: the minimum's top-up and the credits forward.
func (r *PeriodRepository) insertInvoiceCharges(ctx context.Context, fs []billingports.Finalization) error {
	var orgs, fees, sources, titles, descs, ats []string
	var qty, costs []int64
	for _, f := range fs {
		if f.Invoice == nil {
			continue
		}
		for _, l := range f.Invoice.Lines {
			var source string
			switch {
			case l.Fee == billing.FeeMinimum:
				source = f.Invoice.ID
			case l.Title == billing.TitleCreditBroughtForward:
				source = "brought@" + f.Invoice.ID
			case l.Title == billing.TitleCreditCarriedForward:
				source = "carried@" + f.Invoice.ID
			default:
				continue
			}
			orgs, fees, sources = append(orgs, f.Invoice.OrganizationID), append(fees, string(l.Fee)), append(sources, source)
			titles, descs, qty, costs = append(titles, l.Title), append(descs, l.Description), append(qty, l.Milli), append(costs, l.UnitCost)
			ats = append(ats, pgTime(f.End.Add(-time.Microsecond)))
		}
	}
	if len(orgs) == 0 {
		return nil
	}
	_, err := r.run.Exec(ctx, insertInvoiceChargesSQL, postgres.Array(orgs), postgres.Array(fees), postgres.Array(sources), postgres.Array(titles),
		postgres.Array(descs), postgres.Array(qty), postgres.Array(costs), postgres.Array(ats))
	return postgres.DBErr(err)
}

// takeKeys gives each invoice of fs the next key of its finalization year,
// in fs's order: one counter update per year of the batch.
func (r *PeriodRepository) takeKeys(ctx context.Context, fs []billingports.Finalization, out []billingports.FinalizedInvoice) error {
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
		if err := r.run.Query(ctx, nextKeysSQL, func(rows *sql.Rows) error { return rows.Scan(&last) },
			int64(y), fmt.Sprintf("INV-%04d-", y), fmt.Sprintf("INV-%04d.", y), len(at)); err != nil {
			return postgres.DBErr(err)
		}
		for j, i := range at {
			out[i].Key = billing.FormatKey(y, last-len(at)+1+j)
		}
	}
	return nil
}

// insertInvoices writes the invoices of fs and their items, and reads
// them back as stored into out.
func (r *PeriodRepository) insertInvoices(ctx context.Context, fs []billingports.Finalization, out []billingports.FinalizedInvoice) error {
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
	read := make([]struct {
		row   pginvoicing.InvoiceRow
		items []pginvoicing.InvoiceItemRow
	}, len(fs)) // as invoicing's invoiceWithItems
	err := r.run.Query(ctx, insertBilledInvoicesSQL, func(rows *sql.Rows) error {
		var org string
		row, err := pginvoicing.ScanInvoice(rows, "", &org)
		if err != nil {
			return err
		}
		row.OrganizationID = org
		read[at[row.ID]].row = row
		return nil
	}, postgres.Array(ids), postgres.Array(orgs), postgres.Array(keys), postgres.Array(names), postgres.Array(notes), postgres.Array(dues), postgres.Array(totals),
		postgres.Array(searches), postgres.Array(ats))
	if err != nil {
		return fmt.Errorf("insert invoices: %w", postgres.DBErr(err))
	}
	if len(itemInvoices) > 0 {
		err = r.run.Query(ctx, insertBilledItemsSQL, func(rows *sql.Rows) error {
			var it pginvoicing.InvoiceItemRow
			if err := rows.Scan(&it.InvoiceID, &it.ID, &it.Position, &it.Title, &it.Description, &it.Quantity, &it.UnitCost, &it.TotalCost); err != nil {
				return err
			}
			i := at[it.InvoiceID]
			read[i].items = append(read[i].items, it)
			return nil
		}, postgres.Array(itemInvoices), postgres.Array(pos), postgres.Array(titles), postgres.Array(descs), postgres.Array(qty), postgres.Array(costs), postgres.Array(lineTotals))
		if err != nil {
			return fmt.Errorf("insert invoice items: %w", postgres.DBErr(err))
		}
	}
	for i := range fs {
		if fs[i].Invoice == nil {
			continue
		}
		slices.SortFunc(read[i].items, func(a, b pginvoicing.InvoiceItemRow) int { return a.Position - b.Position })
		inv, err := pginvoicing.InvoiceFromRows(read[i].row, read[i].items)
		if err != nil {
			return fmt.Errorf("read invoice %s: %w", fs[i].Invoice.ID, err)
		}
		out[i].Invoice = inv
	}
	return nil
}
