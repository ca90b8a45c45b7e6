package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// The bounds of docs/billing.md ("Bounds") and the small print of the
// operator's charges, through the real use cases.

// billPreviewTotal previews org's open invoice and returns its total.
func billPreviewTotal(t *testing.T, b *billInstance, org string) int64 {
	t.Helper()
	prev, err := b.prev.Handle(context.Background(), billingapp.PreviewInvoices{OrganizationID: org})
	if err != nil {
		t.Fatalf("preview of %s: %v", org, err)
	}
	if len(prev) != 1 {
		t.Fatalf("preview of %s: %d invoices", org, len(prev))
	}
	return prev[0].TotalAmount()
}

// Charges accepted one by one used to take the period's sums past int64:
// preview and close then failed forever for the organization (and the run
// stopped there). Each such charge is refused now, nothing written, and
// the organization's month still previews and closes.
func TestBillingBoundsChargesCannotWedgeAPeriod(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t, "wedge")
	clock.set(utc("2030-11-10T09:00:00Z"))
	for i := range 10 { // 10^7 units × $1,000,000,000 = 10^18 cents each
		_, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "wedge", Reference: fmt.Sprintf("BIG-%d", i),
			Title: fmt.Sprintf("Big %d", i), Quantity: "10000000", UnitCost: 100_000_000_000})
		if !errors.Is(err, billing.ErrPastBounds) {
			t.Fatalf("charge %d: %v, want %v", i, err, billing.ErrPastBounds)
		}
	}
	// At the bound exactly: accepted; one cent more on the period: refused.
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "wedge", Reference: "AT", Title: "At the bound",
		Quantity: "10000", UnitCost: 100_000_000_000}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "wedge", Reference: "PAST", Title: "Past",
		Quantity: "1", UnitCost: 1}); !errors.Is(err, billing.ErrPastBounds) {
		t.Fatalf("a cent past the period's bound: %v", err)
	}
	var n int
	if err := b.db.NewRaw(`SELECT count(*) FROM billing_charges WHERE organization_id = 'wedge' AND fee = 'operator'`).Scan(ctx, &n); err != nil || n != 1 {
		t.Fatalf("%d operator charges stored (%v), want 1", n, err)
	}
	if got := billPreviewTotal(t, b, "wedge"); got != billing.MaxPeriodCents {
		t.Fatalf("preview total %d, want %d", got, billing.MaxPeriodCents)
	}
	clock.set(utc("2030-11-12T09:00:00Z"))
	f, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "wedge"})
	if err != nil || f.TotalAmount != billing.MaxPeriodCents {
		t.Fatalf("close = %+v, %v", f, err)
	}
}

// Sums past int64 (charges stored before the bounds, or a stock of 10^16
// units) used to fail every preview and finalization with "bigint out of
// range"; they are read bounded now, and the invoice is cut to its ceiling.
func TestBillingBoundsSumsPastInt64StillFinalize(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t, "legacy")
	for i, day := range []string{"2030-11-03T10:00:00Z", "2030-11-04T10:00:00Z"} { // two UTC days: two running totals
		billExec(t, b.db, `INSERT INTO billing_charges (organization_id, fee, source_id, title, quantity_milli, divisor, unit_cost, occurred_at)
		VALUES ('legacy', 'operator', ?, 'Legacy', 5000000000000000000, 1, 1, ?)`, fmt.Sprintf("L-%d", i), utc(day))
	}
	clock.set(utc("2030-11-10T09:00:00Z"))
	if got := billPreviewTotal(t, b, "legacy"); got <= 0 || got > billing.InvoiceCeiling {
		t.Fatalf("preview total %d", got)
	}
	clock.set(utc("2030-12-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Finalized) != 1 || res.Finalized[0].TotalAmount <= 0 {
		t.Fatalf("finalized %+v", res.Finalized)
	}
	// CheckChargeDays sums each line of the database: take the rows back.
	billExec(t, b.db, `DELETE FROM billing_charges WHERE organization_id = 'legacy' AND title = 'Legacy'`)
}

// A warehouse holding 10,000 items at the bound of on hand (10^12 each):
// a day's storage, 10^16 units, used to overflow the charge's bigint
// ("bigint out of range") and fail every run; it is read bounded now, and
// the month previews and finalizes.
func TestBillingBoundsStoragePastInt64StillFinalizes(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t, "stock")
	billExec(t, b.db, `INSERT INTO products (id, organization_id, sku, name)
	SELECT 'p_stock_' || i, 'stock', 'SKU-' || i, 'Item ' || i FROM generate_series(1, 10000) i`)
	billExec(t, b.db, `INSERT INTO product_stock (organization_id, product_id, warehouse_id, on_hand)
	SELECT 'stock', 'p_stock_' || i, 'wh_stock', 1000000000000 FROM generate_series(1, 10000) i`)
	clock.set(utc("2030-11-10T09:00:00Z"))
	if got := billPreviewTotal(t, b, "stock"); got <= 0 {
		t.Fatalf("preview total %d", got)
	}
	clock.set(utc("2030-12-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Finalized) != 1 || res.Finalized[0].TotalAmount <= 0 {
		t.Fatalf("finalized %+v", res.Finalized)
	}
}

// Concurrent charges of one organization, each within the bounds alone but
// not together: exactly those that fit are accepted, whatever the order
// (the check reads the period's sums under the organization's billing
// lock, held here by another session while they all start).
func TestBillingBoundsConcurrentCharges(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-10-30T00:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 24)
	billCardedOrg(t, b, "race")
	clock.set(utc("2030-11-10T09:00:00Z"))

	held, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := held.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8042002, hashtext('race'))`); err != nil {
		t.Fatal(err)
	}
	const n = 20 // 10^14 cents each (1,000 units × $1,000,000,000): ten fit in 10^15
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cost := int64(100_000_000_000)
			if i%2 == 1 { // credits race the charges too: ten of each fit
				cost = -cost
			}
			_, errs[i] = b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "race", Reference: fmt.Sprintf("R-%d", i),
				Title: fmt.Sprintf("Charge %d", i%4), Quantity: "1000", UnitCost: cost})
		}()
	}
	time.Sleep(300 * time.Millisecond) // every add waits at the lock
	if err := held.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	accepted := 0
	for i, err := range errs {
		switch {
		case err == nil:
			accepted++
		case !errors.Is(err, billing.ErrPastBounds):
			t.Errorf("charge %d: %v", i, err)
		}
	}
	var charges, credits int64
	if err := b.db.NewRaw(`SELECT coalesce(sum(quantity_milli * unit_cost / 1000) FILTER (WHERE unit_cost > 0), 0),
		coalesce(sum(quantity_milli * unit_cost / 1000) FILTER (WHERE unit_cost < 0), 0)
		FROM billing_charges WHERE organization_id = 'race' AND fee = 'operator'`).Scan(ctx, &charges, &credits); err != nil {
		t.Fatal(err)
	}
	// Ten charges and ten credits fit; the total never passes ±10^15 on
	// the way, whatever the order, so all twenty do.
	if accepted != n || charges != billing.MaxPeriodCents || credits != -billing.MaxPeriodCents {
		t.Fatalf("%d accepted, charges %d, credits %d", accepted, charges, credits)
	}
	// One more of either is refused.
	for _, cost := range []int64{1, -1} {
		if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "race", Reference: fmt.Sprintf("more%d", cost),
			Title: "More", Quantity: "1", UnitCost: cost}); !errors.Is(err, billing.ErrPastBounds) {
			t.Errorf("one more (%d): %v", cost, err)
		}
	}
	billPreviewTotal(t, b, "race")
}

// Charges only: twenty that each fit, ten together; exactly ten accepted.
func TestBillingBoundsConcurrentChargesOneWay(t *testing.T) {
	ctx := context.Background()
	clock := &billClock{now: utc("2030-10-30T00:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 24)
	billCardedOrg(t, b, "race1")
	clock.set(utc("2030-11-10T09:00:00Z"))
	held, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := held.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8042002, hashtext('race1'))`); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "race1", Reference: fmt.Sprintf("R-%d", i),
				Title: fmt.Sprintf("Charge %d", i), Quantity: "1000", UnitCost: 100_000_000_000})
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if err := held.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	accepted := 0
	for i, err := range errs {
		switch {
		case err == nil:
			accepted++
		case !errors.Is(err, billing.ErrPastBounds):
			t.Errorf("charge %d: %v", i, err)
		}
	}
	if accepted != 10 {
		t.Fatalf("%d of %d accepted, want the 10 that fit", accepted, n)
	}
	if got := billPreviewTotal(t, b, "race1"); got != billing.MaxPeriodCents {
		t.Fatalf("preview total %d", got)
	}
}

// A reference asked again: the same content is unchanged (nothing added),
// other content is a reference_conflict naming it; dates outside the sane
// range are refused; a charge dated into a period a close ended mid-month
// names that period, not the open invoice's own month.
func TestBillingOperatorChargeSmallPrint(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t, "small")
	clock.set(utc("2030-11-10T09:00:00Z"))
	add := func(ref, qty string, cost int64, date string) (billingapp.AddChargeResult, error) {
		return b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "small", Reference: ref, Title: "Damage credit",
			Quantity: qty, UnitCost: cost, Date: date})
	}
	if res, err := add("RMA-1", "1", -500, "2030-11-05"); err != nil || !res.Added {
		t.Fatalf("first: %+v, %v", res, err)
	}
	if res, err := add("RMA-1", "1", -500, "2030-11-05"); err != nil || res.Added {
		t.Fatalf("the same again: %+v, %v", res, err)
	}
	if res, err := add("RMA-1", "1", -500, ""); err != nil || res.Added {
		t.Fatalf("the same without its date: %+v, %v", res, err)
	}
	for _, other := range []struct {
		qty  string
		cost int64
		date string
	}{{"2", -500, ""}, {"1", -600, ""}, {"1", -500, "2030-11-06"}} {
		_, err := add("RMA-1", other.qty, other.cost, other.date)
		if !errors.Is(err, billing.ErrReferenceConflict) || !strings.Contains(err.Error(), "RMA-1") {
			t.Errorf("other content %+v: %v", other, err)
		}
	}
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "small", Reference: "RMA-1", Title: "Damage credit",
		Description: "another description", Quantity: "1", UnitCost: -500}); !errors.Is(err, billing.ErrReferenceConflict) {
		t.Errorf("another description: %v", err)
	}
	for _, date := range []string{"0001-01-01", "1999-12-31", "2030-10-15"} { // the last: before the first period (November)
		var v *domain.ValidationError
		if _, err := add("D-"+date, "1", 100, date); !errors.As(err, &v) || v.Field != "date" {
			t.Errorf("--date %s: %v", date, err)
		}
	}

	// A close on the 20th; a charge dated the 15th goes on the open
	// invoice (November 20–30), for November 1–20.
	clock.set(utc("2030-11-20T12:00:00Z"))
	if _, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "small"}); err != nil {
		t.Fatal(err)
	}
	clock.set(utc("2030-11-21T12:00:00Z"))
	res, err := add("LATE-1", "1", 700, "2030-11-15")
	if err != nil || res.ForPeriod != "November 1–20, 2030" {
		t.Fatalf("late charge: %+v, %v", res, err)
	}
	// A shipment of the 18th accrued after the close: its line too.
	billShip(t, b.db, "small", "shp_late", false, 1, utc("2030-11-18T10:00:00Z"))
	if err := b.deps.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
		_, err := r.Charges.AccrueShipment(ctx, "shp_late")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	prev, err := b.prev.Handle(ctx, billingapp.PreviewInvoices{OrganizationID: "small"})
	if err != nil || len(prev) != 1 {
		t.Fatalf("preview: %v, %v", prev, err)
	}
	if prev[0].Name() != "Fulfillment, November 20–30, 2030" {
		t.Errorf("open invoice %q", prev[0].Name())
	}
	late := 0
	for _, it := range prev[0].Items() {
		if strings.Contains(it.Description(), "(for ") {
			late++
			if !strings.HasSuffix(it.Description(), "(for November 1–20, 2030)") {
				t.Errorf("late line %q: %q", it.Title(), it.Description())
			}
		}
	}
	if late != 2 {
		t.Errorf("%d late lines, want 2: %+v", late, billLines(prev[0]))
	}
}

// A close whose time is earlier than the stored off-boarding (a server
// whose clock is behind) never moves it back.
func TestBillingOffboardNeverMovesBack(t *testing.T) {
	ctx := context.Background()
	b, _ := newBillOctober(t, "offb")
	periods := postgres.NewRepositories(b.db, pgbilling.Repositories).BillingPeriods
	later, earlier := utc("2030-11-20T12:00:00Z"), utc("2030-11-20T11:59:00Z")
	for _, at := range []time.Time{later, earlier} {
		if err := periods.Offboard(ctx, "offb", at); err != nil {
			t.Fatal(err)
		}
	}
	var got time.Time
	if err := b.db.NewRaw(`SELECT offboarded_at FROM billing_accounts WHERE organization_id = 'offb'`).Scan(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Equal(later) {
		t.Fatalf("offboarded_at %v, want %v", got, later)
	}
}
