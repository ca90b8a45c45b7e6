package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/billing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

// billSnapshot is every stored invoice of the organization with its items,
// as JSON, IDs left out (two databases make different IDs): what a client
// could see, byte for byte.
func billSnapshot(t *testing.T, db bun.IDB, org string, withIDs bool) string {
	t.Helper()
	var out string
	err := db.QueryRowContext(context.Background(), `SELECT coalesce(json_agg(x ORDER BY x.key), '[]')::text FROM (
	SELECT CASE WHEN ? THEN i.id ELSE '' END AS id, i.key, i.status, i.name, i.notes, i.due_date, i.currency, i.total_amount,
		i.search_text = lower(i.search_text) AS lowered, i.created_at, i.updated_at,
		(SELECT json_agg(json_build_object('title', it.title, 'description', it.description, 'quantity', it.quantity,
			'unitCost', it.unit_cost, 'totalCost', it.total_cost) ORDER BY it.position) FROM invoice_items it WHERE it.invoice_id = i.id) AS items
	FROM invoices i WHERE i.organization_id = ?) x`, withIDs, org).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// billFacts writes the same month of facts for org: November 2030, with a
// receipt reported late (dated the 20th, written on the 25th) when
// lateFrom is not zero and the clock passes it.
func billNovember(t *testing.T, db bun.IDB, org string) []func() {
	t.Helper()
	billMove(t, db, org, false, 40, "opening", "", utc("2030-10-31T20:00:00Z"))
	billMove(t, db, org, true, 3, "opening", "", utc("2030-10-31T20:00:00Z"))
	// Facts by day of November: day d's facts are written when the clock
	// reaches day d (the late receipt on the 25th).
	return []func(){
		3:  func() { billShip(t, db, org, org+"_s1", false, 5, utc("2030-11-03T10:00:00Z")) },
		8:  func() { billReceive(t, db, org, org+"_r1", 30, 1, utc("2030-11-08T09:00:00Z")) },
		12: func() { billService(t, db, org, org+"_v1", "labor_hour", 2_250, utc("2030-11-12T10:00:00Z")) },
		25: func() { billReceive(t, db, org, org+"_r2", 7, 0, utc("2030-11-20T09:00:00Z")) },
		28: func() { billShip(t, db, org, org+"_s2", true, 2, utc("2030-11-28T10:00:00Z")) },
	}
}

// billAllNovember writes org's November (billNovember) at once, then
// sets the clock to December 3, past the period's grace.
func billAllNovember(t *testing.T, b *billInstance, clock *billClock, org string) {
	t.Helper()
	for _, f := range billNovember(t, b.db, org) {
		if f != nil {
			f()
		}
	}
	clock.set(utc("2030-12-03T00:00:00Z"))
}

// A run skipped for ten days and then one run give the same invoices as
// daily runs — the same lines and totals, byte for byte; a late receipt's
// storage is counted either way — issued when each run finalized them:
// created then, due BILLING_TERMS later.
func TestBillingSkippedRunsEqualDailyRuns(t *testing.T) {
	ctx := context.Background()
	start := utc("2030-10-30T00:30:00Z")
	scenario := func(daily bool) string {
		clock := &billClock{now: start}
		b := newBillInstance(t, billDatabase(t), clock, time.UTC, 4)
		org := "org_same"
		billCardedOrg(t, b, org)
		facts := billNovember(t, b.db, org)
		for day := 1; day <= 40; day++ {
			clock.set(utc("2030-11-01T00:30:00Z").AddDate(0, 0, day-1))
			if day < len(facts) && facts[day] != nil {
				facts[day]()
			}
			if daily || day >= 38 { // the skipped scenario runs only from December 8
				if _, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil {
					t.Fatalf("day %d: %v", day, err)
				}
			}
		}
		return billSnapshot(t, b.db, org, false)
	}
	daily, skipped := scenario(true), scenario(false)
	undated := func(snapshot string, issued string) string {
		t.Helper()
		var invs []map[string]any
		if err := json.Unmarshal([]byte(snapshot), &invs); err != nil || len(invs) != 1 {
			t.Fatalf("invoices %s (%v)", snapshot, err)
		}
		if invs[0]["created_at"] != issued {
			t.Errorf("issued %v, want %s (the run that finalized it)", invs[0]["created_at"], issued)
		}
		for _, k := range []string{"notes", "due_date", "created_at", "updated_at"} {
			delete(invs[0], k)
		}
		out, _ := json.Marshal(invs)
		return string(out)
	}
	if d, s := undated(daily, "2030-12-02T00:30:00+00:00"), undated(skipped, "2030-12-08T00:30:00+00:00"); d != s {
		t.Fatalf("daily runs and a skipped run differ:\n daily   %s\n skipped %s", d, s)
	}
	var invs []struct {
		Key         string
		TotalAmount int64 `json:"total_amount"`
	}
	if err := json.Unmarshal([]byte(daily), &invs); err != nil || len(invs) != 1 || invs[0].Key != "INV-2030-000001" {
		t.Fatalf("invoices %s (%v)", daily, err)
	}
}

// A finalized invoice is byte-identical after late charges, rate changes
// and reruns; a late operator charge lands on the next invoice naming its
// period; a card reaching into the closed period is refused, and a seed
// of the card stored already leaves it as it is.
func TestBillingFinalizedInvoiceIsImmutable(t *testing.T) {
	ctx := context.Background()
	org := "org_frozen"
	b, clock := newBillOctober(t, org)
	billAllNovember(t, b, clock, org)
	if _, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil {
		t.Fatal(err)
	}
	before := billSnapshot(t, b.db, org, true)

	// November's card seeded again unchanged (a fixture seeded twice): left
	// as it is; changed, refused like any card into the closed period.
	seed := billingapp.NewSeedBilling(b.deps)
	changed := billExampleCard(org, "2030-11-01")
	changed.Fees["pick_pack_order"] = 999
	for _, c := range []struct {
		card billing.RateCardParams
		want error
	}{{billExampleCard(org, "2030-11-01"), nil}, {changed, domain.ErrInvalidState}} {
		err := b.deps.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
			_, err := seed.SetRateCards(ctx, r, []billing.RateCardParams{c.card})
			return err
		})
		if !errors.Is(err, c.want) {
			t.Fatalf("seeding November's card (pick & pack %d): %v, want %v", c.card.Fees["pick_pack_order"], err, c.want)
		}
	}
	// A card from inside November: refused, nothing changes.
	card := billExampleCard(org, "2030-11-15")
	card.Fees["pick_pack_order"] = 999
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: card}); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("a card into a closed period: %v, want ErrInvalidState", err)
	}
	// A card from December 2 reprices the open period only.
	card = billExampleCard(org, "2030-12-02")
	card.Fees["pick_pack_order"] = 300
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: card}); err != nil {
		t.Fatal(err)
	}
	// A late operator charge dated into November; a late ship; reruns.
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: org, Reference: "late-1", Title: "Relabelling",
		Quantity: "2", UnitCost: 125, Date: "2030-11-29"}); err != nil {
		t.Fatal(err)
	}
	billShip(t, b.db, org, "late_ship", false, 2, utc("2030-12-02T12:00:00Z"))
	for range 3 {
		if _, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil {
			t.Fatal(err)
		}
	}
	if after := billSnapshot(t, b.db, org, true); after != before {
		t.Fatalf("the finalized invoice changed:\n before %s\n after  %s", before, after)
	}
	// December's invoice: the late charge naming November, the ship at the new card.
	clock.set(utc("2031-01-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil || len(res.Finalized) != 1 || res.Finalized[0].Key != "INV-2031-000001" {
		t.Fatalf("December: %+v, %v", res.Finalized, err)
	}
	inv, err := b.deps.Repos.Invoices.Get(ctx, org, res.Finalized[0].InvoiceID)
	if err != nil {
		t.Fatal(err)
	}
	lines := billLines(inv)
	want := map[billLine]bool{
		{"Pick & Pack orders", "wh_org_frozen: 1 shipment", "1", 300, 300}:         true,
		{"Pick & Pack additional units", "wh_org_frozen: 1 shipment", "1", 40, 40}: true,
		{"Relabelling", "1 charge (for November 2030)", "2", 125, 250}:             true,
	}
	for _, l := range lines {
		delete(want, l)
	}
	if len(want) != 0 {
		t.Errorf("December's lines %+v lack %+v", lines, want)
	}
}

// BILLING_TIMEZONE America/New_York: a ship at 23:59 local on November 30
// (December 1 in UTC) is November's; the period ends at local midnight.
func TestBillingTimeZone(t *testing.T) {
	ctx := context.Background()
	org := "org_ny"
	b, clock := billNewYork(t, utc("2030-10-30T00:00:00Z"), org)
	billMove(t, b.db, org, false, 10, "opening", "", utc("2030-11-01T04:00:00Z")) // midnight local: stored all 30 days
	billShip(t, b.db, org, "ny_late", false, 1, utc("2030-12-01T04:59:00Z"))      // 23:59 local on November 30
	billShip(t, b.db, org, "ny_dec", false, 1, utc("2030-12-01T05:00:00Z"))       // 00:00 local on December 1
	// December 1 local + 24 h grace is 05:00 UTC on December 2.
	clock.set(utc("2030-12-02T04:59:59Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil || len(res.Finalized) != 0 {
		t.Fatalf("before the grace ends: %+v, %v", res.Finalized, err)
	}
	clock.set(utc("2030-12-02T05:00:00Z"))
	if res, err = b.run.Handle(ctx, billingapp.RunBilling{}); err != nil || len(res.Finalized) != 1 {
		t.Fatalf("at the grace's end: %+v, %v", res.Finalized, err)
	}
	inv, err := b.deps.Repos.Invoices.Get(ctx, org, res.Finalized[0].InvoiceID)
	if err != nil {
		t.Fatal(err)
	}
	billWantLines(t, billLines(inv), []billLine{
		{"Pick & Pack orders", "wh_org_ny: 1 shipment", "1", 250, 250},
		// 10 units on November 1–29, 9 on the 30th: 299 unit-days ÷ 30.
		{"Storage (units)", "wh_org_ny: 30 days", "9.967", 30, 299},
		{"Monthly minimum", "minimum $50.00 for November 2030", "1", 4451, 4451},
	})
	if inv.TotalAmount() != 5000 {
		t.Errorf("total %d, want the minimum", inv.TotalAmount())
	}
}

// Several instances (pools) at once: concurrent accruals of one shipment,
// runs (each finalizing batches two at a time) and closes of many
// organizations → one charge per fact, one invoice per period,
// consecutive keys.
func TestBillingConcurrentInstances(t *testing.T) {
	ctx := context.Background()
	dsn := billDatabase(t)
	clock := &billClock{now: utc("2030-10-30T00:00:00Z")}
	instances := make([]*billInstance, 4)
	for i := range instances {
		instances[i] = newBillInstance(t, dsn, clock, time.UTC, 4)
		// Batches of 3: each run finalizes its batches two at a time.
		instances[i].deps.Settings.FinalizeBatch = 3
		instances[i].run = billingapp.NewRunBillingHandler(instances[i].deps)
	}
	b := instances[0]
	const orgs = 12
	for i := range orgs {
		org := fmt.Sprintf("org_c%02d", i)
		billCardedOrg(t, b, org)
		billMove(t, b.db, org, false, 100, "opening", "", utc("2030-11-01T00:00:00Z"))
		billShip(t, b.db, org, org+"_s", false, 4, utc("2030-11-05T10:00:00Z"))
	}
	// Many concurrent accruals of one shipment, as concurrent ships would.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			err := instances[i%len(instances)].deps.UnitOfWork.Do(ctx, func(ctx context.Context, r billingRepos) error {
				_, err := r.Charges.AccrueShipment(ctx, "org_c00_s")
				return err
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()

	// The period ended and its grace passed: runs on every instance at once,
	// and closes of half the organizations racing them.
	clock.set(utc("2030-12-02T01:00:00Z"))
	for i := range 8 {
		wg.Go(func() {
			if _, err := instances[i%len(instances)].run.Handle(ctx, billingapp.RunBilling{}); err != nil {
				t.Error(err)
			}
		})
	}
	for i := 0; i < orgs; i += 2 {
		wg.Go(func() {
			_, err := instances[i%len(instances)].close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: fmt.Sprintf("org_c%02d", i)})
			if err != nil && !errors.Is(err, domain.ErrInvalidState) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var charges, dup int
	if err := b.db.QueryRowContext(ctx, `SELECT count(*), count(*) - count(DISTINCT (organization_id, fee, source_id))
	FROM billing_charges WHERE fee LIKE 'pick_pack%'`).Scan(&charges, &dup); err != nil {
		t.Fatal(err)
	}
	if charges != 2*orgs || dup != 0 {
		t.Errorf("%d pick & pack charges (%d twice), want %d", charges, dup, 2*orgs)
	}
	var keys []string
	for i := range orgs {
		org := fmt.Sprintf("org_c%02d", i)
		_, k := billInvoices(t, b.db, org)
		// November's invoice; a close that came after the run finalized a
		// December of a day or nothing (below the minimum: an invoice).
		if len(k) < 1 {
			t.Errorf("%s: no invoice", org)
		}
		keys = append(keys, k...)
		inv := billSnapshot(t, b.db, org, false)
		var got []struct {
			Name        string
			TotalAmount int64 `json:"total_amount"`
		}
		if err := json.Unmarshal([]byte(inv), &got); err != nil {
			t.Fatal(err)
		}
		novembers := 0
		for _, g := range got {
			if g.Name == "Fulfillment, November 2030" {
				novembers++
			}
		}
		if novembers != 1 {
			t.Errorf("%s: %d November invoices: %s", org, novembers, inv)
		}
	}
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k] = true
	}
	for n := 1; n <= len(keys); n++ {
		if k := fmt.Sprintf("INV-2030-%06d", n); !seen[k] {
			t.Errorf("keys %v are not 1…%d: %s is missing", keys, len(keys), k)
		}
	}
}
