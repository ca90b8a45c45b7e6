package postgres_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	"github.com/acme3pl/fulfillment/adapters/system"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	whside "github.com/acme3pl/fulfillment/domain/warehouse"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// Issue 50's billing core: no charge dropped by a card, no organization
// holding up another, keys and issue dates in one order, both periods open
// during the grace, a period that cannot be finalized skipped.

// billAccrue accrues a fact written by hand as its route does, in a
// transaction of its own (kind: shipment, receipt or service).
func billAccrue(t *testing.T, b *billInstance, kind, id string) {
	t.Helper()
	err := b.deps.UnitOfWork.Do(context.Background(), func(ctx context.Context, r billingports.Repositories) error {
		var err error
		switch kind {
		case "shipment":
			_, err = r.Charges.AccrueShipment(ctx, id)
		case "receipt":
			_, err = r.Charges.AccrueReceipt(ctx, id)
		default:
			_, err = r.Charges.AccrueService(ctx, id)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A late shipment's charge (it happened in November, committed after
// November was finalized: dated December 1, "(for November 2030)") stays
// when a card from December 1 is set: repriced in place, never deleted.
func TestBillingCardKeepsALateShipmentsCharge(t *testing.T) {
	org := "org_late_card"
	b, clock := newBillOctober(t, org)
	billReceive(t, b.db, org, "rcp_stock", 100, 0, utc("2030-11-01T00:00:00Z"))
	billRunAt(t, b, clock, utc("2030-12-02T00:00:01Z")) // November finalized
	billShip(t, b.db, org, "shp_late", false, 2, utc("2030-11-30T23:00:00Z"))
	billAccrue(t, b, "shipment", "shp_late")
	billShip(t, b.db, org, "shp_dec", false, 1, utc("2030-12-01T10:00:00Z"))
	billAccrue(t, b, "shipment", "shp_dec")
	card := billExampleCard(org, "2030-12-01")
	card.Fees["pick_pack_order"] = 300
	if _, err := b.set.Handle(context.Background(), billingapp.SetRateCard{Actor: operator, Card: card}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		SourceID, Fee, ForPeriod string
		UnitCost                 int64
	}
	if err := b.db.NewRaw(`SELECT source_id, fee, for_period, unit_cost FROM billing_charges
		WHERE organization_id = ? AND fee LIKE 'pick_pack%' ORDER BY source_id, fee`, org).Scan(context.Background(), &got); err != nil {
		t.Fatal(err)
	}
	want := "shp_dec/pick_pack_order//300 shp_late/pick_pack_order/November 2030/250 shp_late/pick_pack_unit/November 2030/40"
	var have []string
	for _, c := range got {
		have = append(have, c.SourceID+"/"+c.Fee+"/"+c.ForPeriod+"/"+itoa(c.UnitCost))
	}
	if strings.Join(have, " ") != want {
		t.Fatalf("charges after the card:\n %s\nwant\n %s", strings.Join(have, " "), want)
	}
	// December's invoice bills both.
	out, err := b.close.Handle(context.Background(), billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
	if err != nil || out.Invoice == nil {
		t.Fatalf("close: %+v, %v", out, err)
	}
	lines := strings.Join(lineTitles(out.Invoice), "; ")
	if !strings.Contains(lines, "Pick & Pack orders|wh_"+org+": 1 shipment (for November 2030)|250") ||
		!strings.Contains(lines, "Pick & Pack orders|wh_"+org+": 1 shipment|300") {
		t.Fatalf("December's lines %s", lines)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func lineTitles(inv *invoicing.Invoice) []string {
	var out []string
	for _, it := range inv.Items() {
		out = append(out, it.Title()+"|"+it.Description()+"|"+itoa(it.UnitCost()))
	}
	return out
}

// A card that no longer offers a service code that the open period's
// services used is refused, naming the code and the count, and changes
// nothing; one that starts after them is taken.
func TestBillingCardDroppingAUsedServiceIsRefused(t *testing.T) {
	org := "org_svc_card"
	b, clock := newBillOctober(t, org)
	clock.set(utc("2030-11-20T10:00:00Z"))
	billService(t, b.db, org, "svc_1", "kitting", 2000, utc("2030-11-12T10:00:00Z"))
	billAccrue(t, b, "service", "svc_1")
	billService(t, b.db, org, "svc_2", "kitting", 1000, utc("2030-11-13T10:00:00Z"))
	billAccrue(t, b, "service", "svc_2")
	card := billExampleCard(org, "2030-11-10")
	delete(card.Services, "kitting")
	_, err := b.set.Handle(context.Background(), billingapp.SetRateCard{Actor: operator, Card: card})
	if !errors.Is(err, domain.ErrInvalidState) || !strings.Contains(err.Error(), `"kitting" (2 services)`) {
		t.Fatalf("a card dropping kitting: %v; want refused, naming kitting and 2", err)
	}
	var n, cards int
	if err := b.db.NewRaw(`SELECT count(*) FROM billing_charges WHERE organization_id = ? AND fee = 'service'`, org).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	if err := b.db.NewRaw(`SELECT count(*) FROM rate_cards WHERE organization_id = ?`, org).Scan(context.Background(), &cards); err != nil {
		t.Fatal(err)
	}
	if n != 2 || cards != 1 {
		t.Fatalf("%d service charges, %d cards after the refusal; want 2 and 1", n, cards)
	}
	card.EffectiveFrom = "2030-11-14"
	if _, err := b.set.Handle(context.Background(), billingapp.SetRateCard{Actor: operator, Card: card}); err != nil {
		t.Fatalf("a card from after the services: %v", err)
	}
}

// A fact of one organization never waits for another's close: B's close
// is held (B's storage row locked in another session, mid-transaction,
// holding B's billing lock), and A's preview, A's ships, receipt and
// service through the warehouse's use cases and a billing run all
// complete promptly.
func TestBillingOneOrganizationNeverHoldsUpAnother(t *testing.T) {
	ctx := context.Background()
	b, clock := newBillStocked(t, "org_a", 100, 12)
	billStocked(t, b, "org_b", 100)
	ids := billPending(t, b, "org_a", 3)
	clock.set(utc("2030-11-22T10:00:00Z")) // storage of both behind: the close accrues it

	hold, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback() }()
	if _, err := hold.ExecContext(ctx, `SELECT 1 FROM billing_storage WHERE organization_id = 'org_b' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() {
		_, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: "org_b"})
		closed <- err
	}()
	pgtest.WaitForLockWaiters(t, b.db, 1)

	within := func(what string, fn func() error) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- fn() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s waits for org_b's close", what)
		}
	}
	within("org_a's preview", func() error {
		_, err := b.prev.Handle(ctx, billingapp.PreviewInvoices{OrganizationID: "org_a"})
		return err
	})
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for _, id := range ids {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- billShipOne(b, "org_a", id) }()
	}
	within("org_a's ships", func() error {
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	})
	report := billingapp.NewReportBilling(b.deps)
	within("org_a's receipt", func() error {
		_, err := warehouseapp.NewRecordWarehouseReceiptHandler(uowOf(b, pgwarehouse.Repositories), b.deps.Clock, system.IDs{}, report).Handle(ctx,
			warehouseapp.RecordWarehouseReceipt{WarehouseID: "wh_org_a", OrganizationID: "org_a", Reference: "ASN-held",
				Lines: []whside.ReceiptLine{{Kind: shipping.KindProduct, ItemID: "prod_org_a", Quantity: 5}}})
		return err
	})
	within("org_a's service", func() error {
		_, err := warehouseapp.NewRecordWarehouseServiceHandler(uowOf(b, pgwarehouse.Repositories), b.deps.Clock, system.IDs{}, report).Handle(ctx,
			warehouseapp.RecordWarehouseService{WarehouseID: "wh_org_a", OrganizationID: "org_a", Reference: "KIT-held",
				Service: "kitting", QuantityMilli: 3000})
		return err
	})
	within("a billing run", func() error {
		_, err := b.run.Handle(ctx, billingapp.RunBilling{})
		return err
	})
	if _, open := billPickPackOrders(t, b, "org_a"); open != 3 {
		t.Fatalf("org_a's open invoice bills %d orders, want 3", open)
	}
	_ = hold.Rollback()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}

// tickClock advances by a millisecond at each reading.
type tickClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *tickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

// Invoices of a year's series are dated in the order they are numbered:
// many organizations closing at once, with a clock that moves on.
func TestBillingIssueDatesFollowKeys(t *testing.T) {
	orgs := make([]string, 16)
	for i := range orgs {
		orgs[i] = "org_keys_" + string(rune('a'+i))
	}
	b, _ := newBillOctober(t, orgs...)
	d := b.deps
	d.Clock = &tickClock{now: utc("2030-11-20T10:00:00Z")}
	closer := billingapp.NewClosePeriodHandler(d)
	for _, org := range orgs {
		billReceive(t, b.db, org, org+"_rcp", 100, 0, utc("2030-11-01T00:00:00Z"))
	}
	for round := range 3 {
		if round > 0 { // something to bill since the last close
			for _, org := range orgs {
				id := org + "_shp_" + itoa(int64(round))
				billShip(t, b.db, org, id, false, 1, utc("2030-11-20T10:00:00Z").Add(time.Duration(round)*time.Hour))
				billAccrue(t, b, "shipment", id)
			}
		}
		var wg sync.WaitGroup
		for _, org := range orgs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := closer.Handle(context.Background(), billingapp.ClosePeriod{Actor: operator, OrganizationID: org}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	var rows []struct {
		Key       string
		CreatedAt time.Time
	}
	if err := b.db.NewRaw(`SELECT key, created_at FROM invoices ORDER BY key`).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < len(orgs) {
		t.Fatalf("%d invoices, want at least %d", len(rows), len(orgs))
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].CreatedAt.Before(rows[i-1].CreatedAt) {
			t.Errorf("%s created %s, before %s's %s", rows[i].Key, rows[i].CreatedAt.Format(time.RFC3339Nano),
				rows[i-1].Key, rows[i-1].CreatedAt.Format(time.RFC3339Nano))
		}
	}
}

// A period that cannot be finalized is reported and skipped: the same run
// finalizes every other organization's period, and its error names the one
// that failed. No accepted input makes a period fail any more (the sums and
// lines never overflow: billing_bounds_test.go), so the fault is a real one
// of the database: a trigger that refuses org_bad's invoice.
func TestBillingRunSkipsAPeriodThatCannotBeFinalized(t *testing.T) {
	b, clock := newBillOctober(t, "org_ok_1", "org_bad", "org_ok_2")
	billExec(t, b.db, `CREATE FUNCTION refuse_org_bad() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN RAISE EXCEPTION 'org_bad cannot be invoiced'; END $$`)
	billExec(t, b.db, `CREATE TRIGGER refuse_org_bad BEFORE INSERT ON invoices FOR EACH ROW
	WHEN (NEW.organization_id = 'org_bad') EXECUTE FUNCTION refuse_org_bad()`)
	clock.set(utc("2030-12-02T00:00:01Z"))
	res, err := b.run.Handle(context.Background(), billingapp.RunBilling{})
	if err == nil || !strings.Contains(err.Error(), "org_bad from 2030-11-01") {
		t.Fatalf("run error %v; want one naming org_bad's period", err)
	}
	if res.Invoices() != 2 {
		t.Fatalf("%d invoices finalized, want org_ok_1's and org_ok_2's", res.Invoices())
	}
	for _, org := range []string{"org_ok_1", "org_ok_2"} {
		if _, keys := billInvoices(t, b.db, org); len(keys) != 1 {
			t.Errorf("%s has keys %q, want one", org, keys)
		}
	}
	if _, keys := billInvoices(t, b.db, "org_bad"); len(keys) != 0 {
		t.Errorf("org_bad has keys %q", keys)
	}
	billExec(t, b.db, `DROP TRIGGER refuse_org_bad ON invoices`)
	billExec(t, b.db, `DROP FUNCTION refuse_org_bad()`)
	if _, err := b.run.Handle(context.Background(), billingapp.RunBilling{}); err != nil {
		t.Fatalf("the next run, the fault gone: %v", err)
	}
	if _, keys := billInvoices(t, b.db, "org_bad"); len(keys) != 1 {
		t.Errorf("org_bad has keys %q once the fault is gone, want one", keys)
	}
}

// During the grace both periods are open: November's invoice a draft,
// December's accumulating; the preview prints both, each with its own
// charges, and December's keeps its ID once November is finalized. In UTC
// and in America/New_York, across the month's end.
func TestBillingBothPeriodsOpenDuringTheGrace(t *testing.T) {
	for _, zone := range []string{"UTC", "America/New_York"} {
		t.Run(zone, func(t *testing.T) {
			loc, err := time.LoadLocation(zone)
			if err != nil {
				t.Fatal(err)
			}
			at := func(s string) time.Time {
				v, err := time.ParseInLocation("2006-01-02T15:04:05", s, loc)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			org := "org_grace"
			clock := &billClock{now: at("2030-11-20T10:00:00")}
			b := newBillInstance(t, billDatabase(t), clock, loc, 4)
			billCardedOrg(t, b, org)
			billShip(t, b.db, org, "shp_nov", false, 1, at("2030-11-30T23:30:00"))
			billAccrue(t, b, "shipment", "shp_nov")
			clock.set(at("2030-12-01T00:30:00"))
			billShip(t, b.db, org, "shp_dec", true, 2, at("2030-12-01T00:10:00"))
			billAccrue(t, b, "shipment", "shp_dec")
			clock.set(at("2030-12-01T12:00:00"))
			var charges []string
			invs, err := b.prev.Handle(context.Background(), billingapp.PreviewInvoices{OrganizationID: org,
				Charges: func(c invoicingports.InvoiceCharge) error {
					charges = append(charges, c.SourceID+"/"+c.Fee)
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(invs) != 2 || invs[0].Status() != invoicing.InvoiceDraft || invs[1].Status() != invoicing.InvoiceAccumulating {
				t.Fatalf("preview %d invoices %v; want November draft and December accumulating", len(invs), statuses(invs))
			}
			nov, dec := strings.Join(lineTitles(invs[0]), "; "), strings.Join(lineTitles(invs[1]), "; ")
			if !strings.Contains(invs[0].Name(), "November") || !strings.Contains(nov, "Pick & Pack orders|") || strings.Contains(nov, "SPD") {
				t.Errorf("November's draft %q: %s", invs[0].Name(), nov)
			}
			if !strings.Contains(invs[1].Name(), "December") || !strings.Contains(dec, "SPD cartons|") || strings.Contains(dec, "Pick & Pack") {
				t.Errorf("December's invoice %q: %s", invs[1].Name(), dec)
			}
			if got := strings.Join(charges, " "); !strings.Contains(got, "shp_nov/pick_pack_order") || !strings.Contains(got, "shp_dec/spd_carton") {
				t.Errorf("charges of both: %s", got)
			}
			decID := invs[1].ID()
			billRunAt(t, b, clock, at("2030-12-02T00:00:01"))
			invs, err = b.prev.Handle(context.Background(), billingapp.PreviewInvoices{OrganizationID: org})
			if err != nil {
				t.Fatal(err)
			}
			if len(invs) != 1 || invs[0].ID() != decID || invs[0].Status() != invoicing.InvoiceAccumulating {
				t.Fatalf("after November's finalization: %d invoices %v (want December's %s accumulating)", len(invs), statuses(invs), decID)
			}
			if ids, _ := billInvoices(t, b.db, org); len(ids) != 1 {
				t.Fatalf("finalized %v, want November's", ids)
			}
		})
	}
}

// A close during the grace off-boards both open periods in one go:
// November's draft at its own end (the lower key), December up to now; the
// next period starts at the close and bills nothing yet.
func TestBillingCloseDuringTheGraceEndsBothPeriods(t *testing.T) {
	org := "org_grace_close"
	clock := &billClock{now: utc("2030-11-20T10:00:00Z")}
	b := newBillInstance(t, billDatabase(t), clock, time.UTC, 4)
	billCardedOrg(t, b, org)
	billShip(t, b.db, org, "shp_gc_nov", false, 1, utc("2030-11-30T23:30:00Z"))
	billAccrue(t, b, "shipment", "shp_gc_nov")
	clock.set(utc("2030-12-01T00:30:00Z"))
	billShip(t, b.db, org, "shp_gc_dec", true, 2, utc("2030-12-01T00:10:00Z"))
	billAccrue(t, b, "shipment", "shp_gc_dec")
	clock.set(utc("2030-12-01T12:00:00Z"))
	closed, err := b.close.Handle(context.Background(), billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
	if err != nil {
		t.Fatal(err)
	}
	if closed.Draft == nil || closed.Draft.Key == "" || closed.Key == "" {
		t.Fatalf("close during the grace: draft %+v, now %+v; want both finalized", closed.Draft, closed.FinalizedInvoice)
	}
	if !closed.Draft.Period.End.Equal(utc("2030-12-01T00:00:00Z")) || !closed.Period.End.Equal(utc("2030-12-01T12:00:00Z")) {
		t.Errorf("periods ended %s and %s; want November's end and the close", closed.Draft.Period.End, closed.Period.End)
	}
	if closed.Draft.Key >= closed.Key {
		t.Errorf("keys %s then %s; want November's first", closed.Draft.Key, closed.Key)
	}
	if _, keys := billInvoices(t, b.db, org); len(keys) != 2 {
		t.Fatalf("keys %q, want November's and December's", keys)
	}
	again, err := b.close.Handle(context.Background(), billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
	if err != nil || again.Key != "" || again.Draft != nil {
		t.Fatalf("closing again: %+v, %v; want nothing billed", again, err)
	}
}

func statuses(invs []*invoicing.Invoice) []string {
	var out []string
	for _, inv := range invs {
		out = append(out, inv.ID()+" "+string(inv.Status()))
	}
	return out
}

// An organization that does not exist has no preview: not found (the CLI
// exits 1).
func TestBillingPreviewOfNoSuchOrganization(t *testing.T) {
	b, _ := newBillOctober(t)
	if _, err := b.prev.Handle(context.Background(), billingapp.PreviewInvoices{OrganizationID: "no_such_org"}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("preview of no_such_org: %v; want not found", err)
	}
}
