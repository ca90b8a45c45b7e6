package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// billRawSumsSQL is the reference of Sums: a window's charges summed by
// line straight from billing_charges, as finalization read them before
// the running totals.
const billRawSumsSQL = `SELECT c.fee, c.title, c.unit_cost, c.warehouse_id, c.divisor, sum(c.quantity_milli)::bigint, count(*),
	c.description, c.for_period
FROM billing_charges c WHERE c.organization_id = ? AND c.occurred_at >= ? AND c.occurred_at < ?
GROUP BY 1, 2, 3, 4, 5, 8, 9`

// Sums reads whole UTC days from the running totals and the partial days
// at a window's ends from the charges: for windows of every shape (in a
// time zone whose midnight is not UTC's, less than a day, across one
// midnight) it gives what summing the charges gives, after a receipt dated
// back deleted storage charges and a card dated back deleted the charges
// after it (the cleanup of billDatabase then compares every total).
func TestBillingSumsFromRunningTotals(t *testing.T) {
	ctx := context.Background()
	org := "org_days"
	b, clock := billNewYork(t, utc("2030-10-30T12:00:00Z"), org)
	billReceive(t, b.db, org, "rcp_1", 100, 10, utc("2030-11-02T15:00:00Z"))
	for i := range 12 { // two a day, one of them in the evening: after UTC midnight, before New York's
		at := utc("2030-11-03T16:00:00Z").Add(time.Duration(i) * 12 * time.Hour).Add(time.Duration(i) * time.Hour)
		billShip(t, b.db, org, fmt.Sprintf("shp_%d", i), i%4 == 3, 1+int64(i%3), at)
	}
	clock.set(utc("2030-11-10T06:00:00Z"))
	if _, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil {
		t.Fatal(err)
	}
	// A receipt dated back into accrued storage days: its accrual deletes
	// their storage charges, the next run writes them anew.
	billReceive(t, b.db, org, "rcp_late", 30, 1, utc("2030-11-05T03:30:00Z"))
	if err := b.deps.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
		_, err := r.Charges.AccrueReceipt(ctx, "rcp_late")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// A card from November 6: the charges from then on are accrued again at it.
	card := billExampleCard(org, "2030-11-06")
	card.Fees["pick_pack_order"] = 275
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: card}); err != nil {
		t.Fatal(err)
	}
	clock.set(utc("2030-11-12T06:00:00Z"))
	if _, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.deps.Repos.Charges.AddOperatorCharge(ctx, billingports.OperatorCharge{OrganizationID: org, Reference: "adj-1",
		Title: "Adjustment", Description: "Damaged pallet", QuantityMilli: 1000, UnitCost: -1250,
		OccurredAt: utc("2030-11-11T04:59:59Z")}); err != nil {
		t.Fatal(err)
	}

	windows := []billingports.Window{
		{OrganizationID: org, Start: utc("2030-11-01T04:00:00Z"), End: utc("2030-12-01T05:00:00Z")},     // November in New York
		{OrganizationID: org, Start: utc("2030-11-03T12:34:56.789Z"), End: utc("2030-11-09T00:00:00Z")}, // a partial first day
		{OrganizationID: org, Start: utc("2030-11-02T00:00:00Z"), End: utc("2030-11-08T17:00:00Z")},     // a partial last day
		{OrganizationID: org, Start: utc("2030-11-04T01:00:00Z"), End: utc("2030-11-04T20:00:00Z")},     // no whole day
		{OrganizationID: org, Start: utc("2030-11-04T20:00:00Z"), End: utc("2030-11-05T20:00:00Z")},     // across one midnight
		{OrganizationID: org, Start: utc("2030-11-01T00:00:00Z"), End: utc("2030-11-30T00:00:00Z")},     // whole days only
		{OrganizationID: "org_none", Start: utc("2030-11-01T00:00:00Z"), End: utc("2030-11-30T00:00:00Z")},
	}
	got, err := b.deps.Repos.Charges.Sums(ctx, windows)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range windows {
		var want []billing.Sum
		rows, err := b.db.QueryContext(ctx, billRawSumsSQL, w.OrganizationID, w.Start, w.End)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s billing.Sum
			var fee string
			if err := rows.Scan(&fee, &s.Title, &s.UnitCost, &s.WarehouseID, &s.Divisor, &s.Milli, &s.Facts, &s.Description, &s.ForPeriod); err != nil {
				t.Fatal(err)
			}
			s.Fee = billing.Fee(fee)
			want = append(want, s)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(billSortedSums(got[i])) != fmt.Sprint(billSortedSums(want)) {
			t.Errorf("window %d (%s to %s):\n got  %v\n want %v", i, w.Start, w.End, billSortedSums(got[i]), billSortedSums(want))
		}
		if i < 5 && len(want) == 0 {
			t.Errorf("window %d holds no charge: it tests nothing", i)
		}
	}
	// The card from November 6 replaced charges: those at the old price
	// were deleted, and their running totals went back to no fact.
	var rows, facts int
	if err := b.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(facts), 0) FROM billing_charge_days
		WHERE organization_id = ? AND fee = 'pick_pack_order' AND unit_cost = 250 AND day >= '2030-11-07'`, org).Scan(&rows, &facts); err != nil {
		t.Fatal(err)
	}
	if rows == 0 || facts != 0 {
		t.Fatalf("running totals of the replaced charges: %d rows, %d facts; want some rows, 0 facts", rows, facts)
	}
}

// billSortedSums orders sums by their line, as their text.
func billSortedSums(s []billing.Sum) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%+v", x)
	}
	slices.Sort(out)
	return out
}

// billInvoiceKey writes an invoice of the organization with the key.
func billInvoiceKey(t *testing.T, db bun.IDB, org, key string) {
	t.Helper()
	billExec(t, db, `INSERT INTO invoices (id, organization_id, key, status, name, notes, due_date, currency, total_amount,
		search_text, created_at, updated_at) VALUES ('inv_keys_' || gen_random_uuid(), ?, ?, 'paid', 'Keys', '',
		'2031-02-01', 'USD', 0, 'keys', '2031-01-05', '2031-01-05')`, org, key)
}

// A run's claim overtaken on the real database: another transaction makes
// the year's counter while the run's first batch claims its keys, takes the
// first key itself and commits. The claim fails, that batch and the later
// ones are finalized again from the counter, and the keys stay consecutive
// after the other transaction's, none twice.
func TestBillingRunClaimOvertaken(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t)
	b.deps.Settings.FinalizeBatch = 1 // three batches, each its own turn
	run := billingapp.NewRunBillingHandler(b.deps)
	billOrg(t, b.db, "org_other") // no card: no period of the run
	for _, org := range []string{"org_o1", "org_o2", "org_o3"} {
		billCardedOrg(t, b, org)
		billShip(t, b.db, org, "ship_"+org, false, 1, utc("2030-11-10T10:00:00Z"))
	}

	other, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Rollback() }()
	if _, err := other.ExecContext(ctx, `INSERT INTO billing_key_counters (year, last) VALUES (2030, 0)`); err != nil {
		t.Fatal(err)
	}
	clock.set(utc("2030-12-02T00:00:00Z"))
	type result struct {
		res billingapp.RunResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := run.Handle(ctx, billingapp.RunBilling{})
		done <- result{res, err}
	}()
	pgtest.WaitForLockWaiters(t, b.db, 1) // the first batch's claim waits for the counter
	if _, err := other.ExecContext(ctx, `UPDATE billing_key_counters SET last = 1 WHERE year = 2030`); err != nil {
		t.Fatal(err)
	}
	billInvoiceKey(t, other, "org_other", "INV-2030-000001")
	if err := other.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	var keys []string
	for _, f := range r.res.Finalized {
		if f.Key != "" {
			keys = append(keys, f.Key)
		}
	}
	if want := []string{"INV-2030-000002", "INV-2030-000003", "INV-2030-000004"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	var stored, distinct, last int
	if err := b.db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT key), (SELECT last FROM billing_key_counters WHERE year = 2030)
		FROM invoices WHERE key LIKE 'INV-2030-%'`).Scan(&stored, &distinct, &last); err != nil {
		t.Fatal(err)
	}
	if stored != 4 || distinct != 4 || last != 4 {
		t.Fatalf("%d invoices of 2030, %d keys, counter at %d; want 4, 4, 4", stored, distinct, last)
	}
}
