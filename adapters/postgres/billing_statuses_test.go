package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgbilling "github.com/acme3pl/fulfillment/adapters/postgres/billing"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
)

type billingRepos = billingports.Repositories

// An unpaid invoice past its due date by BILLING_COLLECTIONS_AFTER becomes
// collecting at the next run, dated when it became due; a paid one stays;
// the operator's transitions are the allowed ones only.
func TestBillingCollectingAndStatuses(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t, "org_late", "org_payer")
	clock.set(utc("2030-12-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil || res.Invoices() != 2 {
		t.Fatalf("run: %+v, %v", res, err)
	}
	ids := map[string]string{}
	for _, f := range res.Finalized {
		ids[f.OrganizationID] = f.InvoiceID
	}
	if _, err := b.move.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: ids["org_payer"], To: "paid"}); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"unpaid", "pending_payment", "draft", "bogus"} {
		if _, err := b.move.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: ids["org_payer"], To: to}); err == nil {
			t.Errorf("paid → %s was allowed", to)
		}
	}
	if _, err := b.move.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: "inv_nope", To: "paid"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown invoice: %v", err)
	}
	// Due January 1, 2031 00:00; collecting 720 h later, January 31.
	clock.set(utc("2031-01-30T23:59:59Z"))
	if res, err = b.run.Handle(ctx, billingapp.RunBilling{}); err != nil || len(res.Collected) != 0 {
		t.Fatalf("before: %+v, %v", res.Collected, err)
	}
	clock.set(utc("2031-02-03T00:00:00Z"))
	if res, err = b.run.Handle(ctx, billingapp.RunBilling{}); err != nil || len(res.Collected) != 1 || res.Collected[0] != ids["org_late"] {
		t.Fatalf("after: %+v, %v", res.Collected, err)
	}
	inv, err := b.deps.Repos.Invoices.Get(ctx, "org_late", ids["org_late"])
	if err != nil || inv.Status() != invoicing.InvoiceCollecting || !inv.UpdatedAt().Equal(utc("2031-01-31T00:00:00Z")) {
		t.Fatalf("collected invoice: %v %v", inv, err)
	}
	if paid, _ := b.deps.Repos.Invoices.Get(ctx, "org_payer", ids["org_payer"]); paid.Status() != invoicing.InvoicePaid {
		t.Errorf("the paid invoice is %s", paid.Status())
	}
	// collecting → paid is allowed.
	if from, err := b.move.Handle(ctx, billingapp.ChangeInvoiceStatus{Actor: operator, InvoiceID: ids["org_late"], To: "paid"}); err != nil || from != invoicing.InvoiceCollecting {
		t.Errorf("collecting → paid: %s, %v", from, err)
	}
}

// A receipt's check of a closed period racing a finalization: it waits for
// the finalizing transaction and then sees the period closed (not "no
// period at all", which a locking read of the old row would find).
func TestBillingPeriodClosedWaitsForFinalization(t *testing.T) {
	ctx := context.Background()
	org := "org_race"
	b, _ := newBillOctober(t, org)
	locked, release := make(chan struct{}), make(chan struct{})
	finalized := make(chan error, 1)
	go func() {
		finalized <- b.deps.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
			p, err := r.BillingPeriods.LockOpen(ctx, org)
			if err != nil {
				return err
			}
			if _, err := r.BillingPeriods.Finalize(ctx, []billingports.Finalization{{Period: p, End: p.Period.End, At: p.Period.End,
				NextEnd: utc("2031-01-01T00:00:00Z"), NextInvoiceID: "inv_next_race"}}); err != nil {
				return err
			}
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked
	closed := make(chan bool, 1)
	go func() {
		var c bool
		err := b.deps.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
			var err error
			c, err = r.BillingPeriods.PeriodClosed(ctx, org, utc("2030-11-20T00:00:00Z"))
			return err
		})
		if err != nil {
			t.Error(err)
		}
		closed <- c
	}()
	pgtest.WaitForLockWaiters(t, b.db, 1)
	close(release)
	if err := <-finalized; err != nil {
		t.Fatal(err)
	}
	if !<-closed {
		t.Error("PeriodClosed answered false for a day of the period finalized while it waited")
	}
	// And the new period is open to what follows.
	err := b.deps.UnitOfWork.Do(ctx, func(ctx context.Context, r billingports.Repositories) error {
		c, err := r.BillingPeriods.PeriodClosed(ctx, org, utc("2030-12-01T00:00:00Z"))
		if err == nil && c {
			t.Error("December is closed")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// In production test shipments are never charged; a period with no charge
// and no minimum makes no invoice.
func TestBillingProductionSkipsTestShipments(t *testing.T) {
	ctx := context.Background()
	dsn := billDatabase(t)
	clock := &billClock{now: utc("2030-10-30T00:00:00Z")}
	b := newBillInstance(t, dsn, clock, time.UTC, 4)
	b.deps.UnitOfWork = postgres.NewUnitOfWork(b.db, pgbilling.Repositories, postgres.WithBilling(postgres.BillingSettings{Location: time.UTC}))
	b.run = billingapp.NewRunBillingHandler(b.deps)
	b.set = billingapp.NewSetRateCardHandler(b.deps)
	for _, org := range []string{"org_prod", "org_quiet"} {
		billOrg(t, b.db, org)
		card := billExampleCard(org, "2030-11-01")
		delete(card.Fees, "minimum_monthly")
		if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: card}); err != nil {
			t.Fatal(err)
		}
	}
	// The stock the ships take, counted after November: the period bills no storage.
	billMove(t, b.db, "org_prod", false, 3, "opening", "", utc("2030-12-01T12:00:00Z"))
	billShip(t, b.db, "org_prod", "prod_test", false, 2, utc("2030-11-05T10:00:00Z")) // test: true
	billShip(t, b.db, "org_prod", "prod_real", false, 1, utc("2030-11-06T10:00:00Z"))
	billExec(t, b.db, `UPDATE shipments SET test = false WHERE id = 'prod_real'`)
	clock.set(utc("2030-12-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil || len(res.Finalized) != 2 || res.Invoices() != 1 {
		t.Fatalf("run: %+v, %v", res, err)
	}
	for _, f := range res.Finalized {
		switch f.OrganizationID {
		case "org_prod":
			inv, err := b.deps.Repos.Invoices.Get(ctx, f.OrganizationID, f.InvoiceID)
			if err != nil {
				t.Fatal(err)
			}
			billWantLines(t, billLines(inv), []billLine{{"Pick & Pack orders", "wh_org_prod: 1 shipment", "1", 250, 250}})
		case "org_quiet":
			if f.Key != "" {
				t.Errorf("a period without charges or minimum made invoice %s", f.Key)
			}
		}
	}
	if _, keys := billInvoices(t, b.db, "org_quiet"); len(keys) != 0 {
		t.Errorf("org_quiet has invoices %v", keys)
	}
}

// A period whose credits come to exceed its charges (a cheaper card
// repriced them after the credit) is finalized like any other: its
// invoice carries the credit forward and totals 0, paid at once; the other
// organizations' invoices take consecutive keys; the organization's next
// invoice that has charges brings the credit forward.
func TestBillingCreditCarriedForward(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillOctober(t)
	orgs := []string{"org_r1", "org_r2", "org_r3"}
	for _, org := range orgs {
		billOrg(t, b.db, org)
		card := billExampleCard(org, "2030-11-01")
		for _, f := range []string{"minimum_monthly", "storage_unit_month", "storage_carton_month"} {
			delete(card.Fees, f)
		}
		if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: card}); err != nil {
			t.Fatal(err)
		}
		billMove(t, b.db, org, false, 5, "opening", "", utc("2030-10-31T20:00:00Z"))
		billShip(t, b.db, org, "ship_"+org, false, 1, utc("2030-11-10T10:00:00Z"))
	}
	clock.set(utc("2030-11-20T00:00:00Z"))
	// Never refused for its size: $2.00 against $2.50 of charges so far.
	if _, err := b.add.Handle(ctx, billingapp.AddCharge{Actor: operator, OrganizationID: "org_r2", Reference: "goodwill", Title: "Goodwill credit",
		Quantity: "1", UnitCost: -400}); err != nil {
		t.Fatal(err)
	}
	cheaper := billExampleCard("org_r2", "2030-11-01")
	cheaper.Fees["pick_pack_order"] = 100
	for _, f := range []string{"minimum_monthly", "storage_unit_month", "storage_carton_month"} {
		delete(cheaper.Fees, f)
	}
	if _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: cheaper}); err != nil {
		t.Fatal(err)
	}

	clock.set(utc("2030-12-02T00:00:00Z"))
	res, err := b.run.Handle(ctx, billingapp.RunBilling{})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, f := range res.Finalized {
		keys[f.OrganizationID] = f.Key
	}
	if len(keys) != 3 || keys["org_r1"] != "INV-2030-000001" || keys["org_r2"] != "INV-2030-000002" || keys["org_r3"] != "INV-2030-000003" {
		t.Fatalf("finalized %v, want all three with consecutive keys", keys)
	}
	ids, _ := billInvoices(t, b.db, "org_r2")
	inv, err := b.deps.Repos.Invoices.Get(ctx, "org_r2", ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if inv.Status() != invoicing.InvoicePaid || inv.TotalAmount() != 0 {
		t.Fatalf("org_r2's invoice: %s, %d; want paid at 0", inv.Status(), inv.TotalAmount())
	}
	billWantLines(t, billLines(inv), []billLine{
		{"Pick & Pack orders", "wh_org_r2: 1 shipment", "1", 100, 100},
		{"Goodwill credit", "1 charge", "1", -400, -400},
		{"Credit carried forward", "credit to the next invoice", "1", 300, 300},
	})

	// December: a ship of $1.00; the credit of $3.00 is brought forward,
	// $2.00 of it carried again.
	billShip(t, b.db, "org_r2", "ship_dec", false, 1, utc("2030-12-10T10:00:00Z"))
	clock.set(utc("2031-01-02T00:00:00Z"))
	if _, err := b.run.Handle(ctx, billingapp.RunBilling{}); err != nil {
		t.Fatal(err)
	}
	ids, _ = billInvoices(t, b.db, "org_r2")
	if len(ids) != 2 {
		t.Fatalf("org_r2 has invoices %v", ids)
	}
	dec, err := b.deps.Repos.Invoices.Get(ctx, "org_r2", ids[1])
	if err != nil {
		t.Fatal(err)
	}
	billWantLines(t, billLines(dec), []billLine{
		{"Credit brought forward", "credit from an earlier invoice", "1", -300, -300},
		{"Pick & Pack orders", "wh_org_r2: 1 shipment", "1", 100, 100},
		{"Credit carried forward", "credit to the next invoice", "1", 200, 200},
	})
}
