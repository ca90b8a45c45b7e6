package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgwarehouse "github.com/acme3pl/fulfillment/adapters/postgres/warehouse"
	billingapp "github.com/acme3pl/fulfillment/application/billing"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain/billing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	whside "github.com/acme3pl/fulfillment/domain/warehouse"
)

// The warehouse's reports racing billing's closes and cards, through the
// real use cases (docs/receiving.md, "Reports racing a close").

// whReporters are the receipt and service use cases of a billing instance,
// with billing's part of the reports.
func whReporters(b *billInstance) (*warehouseapp.RecordWarehouseReceiptHandler, *warehouseapp.RecordWarehouseServiceHandler) {
	rb := billingapp.NewReportBilling(b.deps)
	return warehouseapp.NewRecordWarehouseReceiptHandler(uowOf(b, pgwarehouse.Repositories), b.deps.Clock, b.deps.IDs, rb),
		warehouseapp.NewRecordWarehouseServiceHandler(uowOf(b, pgwarehouse.Repositories), b.deps.Clock, b.deps.IDs, rb)
}

// whHolder is a second session's transaction that holds what the reports
// wait for: a stock row, a reference, the organization's billing lock.
func whHolder(t *testing.T, db *bun.DB, stmts ...string) bun.Tx {
	t.Helper()
	return pgtest.Holder(t, db, stmts...)
}

// whBillingLock is the statement that takes org's billing lock exclusively,
// as a close does (docs/billing.md, "One lock order").
func whBillingLock(org string) string {
	return fmt.Sprintf(`SELECT pg_advisory_xact_lock(8042002, hashtext('%s'))`, org)
}

// whWaitForAdvisory waits until n sessions wait for an advisory lock (the
// billing lock), failing t after 15 s.
func whWaitForAdvisory(t *testing.T, db *bun.DB, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		k := scanQuery[int](t, db, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)
		if k >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d session(s) wait for an advisory lock, want %d", k, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Undated receipts and services racing closes, stretched so that every one
// of them reads the clock before a close and reaches the billing lock
// after it: a second session holds the stock row the receipts move and the
// references the services take, a third holds the billing lock so that the
// first close is under way (waiting inside its lock) while the reports
// queue behind it; a second close races them as they commit. Every report
// is accepted, dated after the closes it raced, and charged once. A
// receipt dated into the closed period is still refused.
func TestUndatedReportsRacingClosesAreNeverRefused(t *testing.T) {
	ctx := context.Background()
	org := "org_undated"
	b, clock := newBillStocked(t, org, 1_000, 40)
	receive, serve := whReporters(b)
	const rounds, receipts, services = 6, 6, 4
	base := utc("2030-11-20T10:00:00Z")
	for round := range rounds {
		t0 := base.Add(time.Duration(round) * 2 * time.Hour)
		clock.set(t0)
		stmts := []string{fmt.Sprintf(`SELECT 1 FROM product_stock WHERE product_id = 'prod_%s' FOR UPDATE`, org)}
		for i := range services {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO warehouse_services (id, warehouse_id, organization_id, reference, service,
				quantity_milli, performed_at, performed_at_given, created_at)
				VALUES ('svc_hold_%d_%d', 'wh_%s', '%s', 'SVC-%d-%d', 'kitting', 1000, '2030-11-01', true, '2030-11-01')`,
				round, i, org, org, round, i))
		}
		rows := whHolder(t, b.db, stmts...)
		var wg sync.WaitGroup
		errs := make(chan error, receipts+services)
		for i := range receipts {
			wg.Go(func() {
				_, err := receive.Handle(ctx, warehouseapp.RecordWarehouseReceipt{WarehouseID: "wh_" + org, OrganizationID: org,
					Reference: fmt.Sprintf("ASN-%d-%d", round, i),
					Lines:     []whside.ReceiptLine{{Kind: shipping.KindProduct, ItemID: "prod_" + org, Quantity: 2}}})
				errs <- err
			})
		}
		for i := range services {
			wg.Go(func() {
				_, err := serve.Handle(ctx, warehouseapp.RecordWarehouseService{WarehouseID: "wh_" + org, OrganizationID: org,
					Reference: fmt.Sprintf("SVC-%d-%d", round, i), Service: "kitting", QuantityMilli: 1_500})
				errs <- err
			})
		}
		pgtest.WaitForLockWaiters(t, b.db, receipts+services) // each read its time, then waits for a row

		// A close under way: it waits inside for the billing lock held by a
		// third session while the reports queue behind it.
		lock := whHolder(t, b.db, whBillingLock(org))
		clock.set(t0.Add(time.Hour))
		closes := make(chan error, 2)
		go func() {
			_, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
			closes <- err
		}()
		pgtest.WaitForLockWaiters(t, b.db, receipts+services+1)
		if err := rows.Rollback(); err != nil {
			t.Fatal(err)
		}
		// The close, every service and the first receipt wait for the billing
		// lock (the other receipts wait for the first's stock row).
		whWaitForAdvisory(t, b.db, 1+services+1)
		if err := lock.Rollback(); err != nil {
			t.Fatal(err)
		}
		// A second close racing the reports as they commit.
		go func() {
			clock.set(t0.Add(90 * time.Minute))
			_, err := b.close.Handle(ctx, billingapp.ClosePeriod{Actor: operator, OrganizationID: org})
			closes <- err
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: an undated report: %v", round, err)
			}
		}
		for range 2 {
			if err := <-closes; err != nil {
				t.Fatal(err)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
		// Every report of the round is dated after the close it waited for.
		if n := scanQuery[int](t, b.db, `SELECT (SELECT count(*) FROM warehouse_receipts WHERE organization_id = ? AND reference LIKE ?
			AND received_at < ?) + (SELECT count(*) FROM warehouse_services WHERE organization_id = ? AND reference LIKE ? AND performed_at < ?)`,
			org, fmt.Sprintf("ASN-%d-%%", round), t0.Add(time.Hour), org, fmt.Sprintf("SVC-%d-%%", round), t0.Add(time.Hour)); n != 0 {
			t.Fatalf("round %d: %d reports dated before the close they raced", round, n)
		}
	}

	shipWantStock(t, b.db, "product_stock", "wh_"+org, "prod_"+org, 1_000+2*rounds*receipts, 0)
	pgtest.LedgerHolds(t, b.db, org)
	if n := scanQuery[int](t, b.db, `SELECT count(*) FROM stock_movements m JOIN warehouse_receipts r ON r.id = m.receipt_id
		WHERE r.organization_id = ? AND m.occurred_at <> r.received_at`, org); n != 0 {
		t.Fatalf("%d movements not dated as their receipt", n)
	}
	if n := scanQuery[int](t, b.db, `SELECT count(*) FILTER (WHERE c.occurred_at = r.received_at) FROM billing_charges c
		JOIN warehouse_receipts r ON r.id = c.source_id WHERE c.organization_id = ? AND c.fee = 'receiving_unit'`, org); n != rounds*receipts {
		t.Fatalf("%d receiving charges dated as their receipt, want %d", n, rounds*receipts)
	}
	var units, kits int64
	if err := b.db.NewRaw(`SELECT coalesce(sum(quantity_milli) FILTER (WHERE fee = 'receiving_unit'), 0)::bigint,
		count(*) FILTER (WHERE fee = 'service' AND title = 'Kitting') FROM billing_charges WHERE organization_id = ?`, org).Scan(ctx, &units, &kits); err != nil {
		t.Fatal(err)
	}
	if units != 2*1000*rounds*receipts || kits != rounds*services {
		t.Fatalf("charged %d units received (milli) and %d kitting services, want %d and %d",
			units, kits, 2*1000*rounds*receipts, rounds*services)
	}

	// A time given inside the closed period is still refused.
	at := base.Add(30 * time.Minute)
	_, err := receive.Handle(ctx, warehouseapp.RecordWarehouseReceipt{WarehouseID: "wh_" + org, OrganizationID: org, Reference: "ASN-LATE",
		ReceivedAt: &at, Lines: []whside.ReceiptLine{{Kind: shipping.KindProduct, ItemID: "prod_" + org, Quantity: 1}}})
	if !errors.Is(err, whside.ErrPeriodClosed) {
		t.Fatalf("a receipt dated into a closed period: %v, want period closed", err)
	}
	_, err = serve.Handle(ctx, warehouseapp.RecordWarehouseService{WarehouseID: "wh_" + org, OrganizationID: org, Reference: "SVC-LATE",
		PerformedAt: &at, Service: "kitting", QuantityMilli: 1_000})
	if !errors.Is(err, whside.ErrPeriodClosed) {
		t.Fatalf("a service dated into a closed period: %v, want period closed", err)
	}
}

// A service checked against the card in force at its time under the
// billing lock: a card set while the service waits (held by a second
// session's reference and a third's billing lock, so that the service has
// read nothing of billing yet and the card waits inside its lock) decides
// it. The card drops kitting and adds gift wrapping: the kitting service
// is refused 422 unknown_service (the new card does not price it, so it
// would have left the bill), the gift wrapping accepted and charged.
func TestServiceRacingACardIsCheckedAgainstIt(t *testing.T) {
	ctx := context.Background()
	org := "org_svc_card"
	b, _ := newBillStocked(t, org, 10, 10)
	_, serve := whReporters(b)
	rows := whHolder(t, b.db,
		fmt.Sprintf(`INSERT INTO warehouse_services (id, warehouse_id, organization_id, reference, service, quantity_milli,
			performed_at, performed_at_given, created_at) VALUES ('svc_hold_1', 'wh_%s', '%s', 'SVC-KIT', 'kitting', 1000, '2030-11-01', true, '2030-11-01'),
			('svc_hold_2', 'wh_%s', '%s', 'SVC-GIFT', 'kitting', 1000, '2030-11-01', true, '2030-11-01')`, org, org, org, org))
	results := map[string]chan error{"kitting": make(chan error, 1), "gift_wrap": make(chan error, 1)}
	for code, ref := range map[string]string{"kitting": "SVC-KIT", "gift_wrap": "SVC-GIFT"} {
		go func() {
			_, err := serve.Handle(ctx, warehouseapp.RecordWarehouseService{WarehouseID: "wh_" + org, OrganizationID: org,
				Reference: ref, Service: code, QuantityMilli: 1_000})
			results[code] <- err
		}()
	}
	pgtest.WaitForLockWaiters(t, b.db, 2)

	lock := whHolder(t, b.db, whBillingLock(org))
	card := billExampleCard(org, "2030-11-20")
	card.Services = map[string]billing.Service{"gift_wrap": {Title: "Gift wrapping", UnitCost: 90}}
	set := make(chan error, 1)
	go func() { _, err := b.set.Handle(ctx, billingapp.SetRateCard{Actor: operator, Card: card}); set <- err }()
	whWaitForAdvisory(t, b.db, 1)
	if err := rows.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The services have their references; give them the time to go as far as
	// they go before the billing lock is free.
	for scanQuery[int](t, b.db, `SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted`) != 0 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-set; err != nil {
		t.Fatal(err)
	}
	if err := <-results["kitting"]; !errors.Is(err, whside.ErrUnknownService) {
		t.Errorf("kitting, which the card set meanwhile drops: %v, want unknown service", err)
	}
	if err := <-results["gift_wrap"]; err != nil {
		t.Errorf("gift wrapping, which the card set meanwhile adds: %v", err)
	}
	var stored, charged int
	if err := b.db.NewRaw(`SELECT (SELECT count(*) FROM warehouse_services WHERE organization_id = ?),
		(SELECT count(*) FROM billing_charges WHERE organization_id = ? AND fee = 'service' AND title = 'Gift wrapping')`, org, org).
		Scan(ctx, &stored, &charged); err != nil {
		t.Fatal(err)
	}
	if stored != 1 || charged != 1 {
		t.Fatalf("%d services stored, %d gift wrappings charged; want 1 and 1", stored, charged)
	}
}
