package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgintake "github.com/acme3pl/fulfillment/adapters/postgres/intake"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	pgshipping "github.com/acme3pl/fulfillment/adapters/postgres/shipping"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

func TestReceiveStorefrontOrderStoresShipmentItemsAndReceipt(t *testing.T) {
	db, org := intakeSeeded(t, 3)
	app := intakeApp(db, nil)
	o := intakeOrderOf(9007199254740993, "SKU-1", " SKU-2", "SKU-1")
	res, err := intakeReceive(app, org, o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := postgres.NewRepositories(db, pgshipping.Repositories).Shipments.Get(context.Background(), org, res.ShipmentID)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []shipping.ShipmentLine{{ItemID: org + "_p1", SKU: "SKU-1", Quantity: 4}, {ItemID: org + "_p2", SKU: "SKU-2", Quantity: 2}}
	if fmt.Sprint(s.Lines()) != fmt.Sprint(wantLines) || s.Status() != shipping.ShipmentPending || s.Warehouse().ID != org+"_wh2" ||
		s.Notes() != "Hinterhaus 🙏" || s.Address().Name != "Zoë Müller" || s.Source().OrderID != 9007199254740993 || !s.Test() {
		t.Fatalf("shipment %+v lines %+v", s, s.Lines())
	}
	if n := scanQuery[int](t, db, "SELECT reserved FROM product_stock WHERE product_id = ? AND warehouse_id = ?", org+"_p1", org+"_wh2"); n != 4 {
		t.Errorf("reserved %d, want 4", n)
	}
	rec, err := postgres.NewRepositories(db, pgintake.Repositories).Receipts.Get(context.Background(), org, o.ID)
	if err != nil || rec.Status() != intake.ReceiptSucceeded || rec.ShipmentID() != res.ShipmentID || rec.Attempts() != 1 {
		t.Fatalf("receipt %+v, %v", rec, err)
	}
}

// failingAccept stores the shipment (with its reservation and the
// receipt's success), then fails: the transaction must roll the shipment,
// its items and its reservation back.
type failingAccept struct {
	intakeports.OrderReceiptRepository
}

func (f failingAccept) Accept(ctx context.Context, rec *intake.OrderReceipt, s *shipping.Shipment) error {
	if err := f.OrderReceiptRepository.Accept(ctx, rec, s); err != nil {
		return err
	}
	return errors.New("injected failure after the insert")
}

type failingUoW struct {
	inner ports.UnitOfWork[intakeports.Repositories]
}

func (u failingUoW) Do(ctx context.Context, fn func(ctx context.Context, r intakeports.Repositories) error) error {
	return u.inner.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
		r.Receipts = failingAccept{r.Receipts}
		return fn(ctx, r)
	})
}

func TestReceiveStorefrontOrderFailureLeavesNoShipment(t *testing.T) {
	db, org := intakeSeeded(t, 1)
	o := intakeOrderOf(5, "SKU-1")
	if _, err := intakeReceive(intakeApp(db, failingUoW{postgres.NewUnitOfWork(db, pgintake.Repositories)}), org, o); err == nil {
		t.Fatal("no error from a failing transaction")
	}
	if n := scanQuery[int](t, db, "SELECT count(*) FROM shipments WHERE organization_id = ?", org); n != 0 {
		t.Fatalf("%d shipments after a rolled back attempt", n)
	}
	if n := scanQuery[int](t, db, "SELECT coalesce(sum(reserved), 0) FROM product_stock WHERE product_id = ?", org+"_p1"); n != 0 {
		t.Fatalf("reserved %d after a rolled back attempt", n)
	}
	rec, err := postgres.NewRepositories(db, pgintake.Repositories).Receipts.Get(context.Background(), org, 5)
	if err != nil || rec.Status() != intake.ReceiptFailed || rec.LastError() != "internal" || rec.Attempts() != 1 {
		t.Fatalf("receipt %+v, %v; want the failed attempt recorded", rec, err)
	}
	res, err := intakeReceive(intakeApp(db, nil), org, o)
	if err != nil || res.ShipmentID == "" || res.Duplicate {
		t.Fatalf("retry %+v, %v", res, err)
	}
	if rec, err := postgres.NewRepositories(db, pgintake.Repositories).Receipts.Get(context.Background(), org, 5); err != nil || rec.Attempts() != 2 || rec.Status() != intake.ReceiptSucceeded {
		t.Errorf("receipt after retry %+v, %v", rec, err)
	}
}

// The concurrency test: 32 goroutines deliver the same order at
// once, for 50 different orders, through the real use case on the real
// database; every order makes exactly one shipment and every answer names
// it.
func TestReceiveStorefrontOrderConcurrentDeliveries(t *testing.T) {
	const orders, deliveries = 50, 32
	db, org := intakeSeeded(t, 3)
	app := intakeApp(db, nil)
	answers := make([][]intakeapp.StorefrontOrderResult, orders)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range orders {
		answers[i] = make([]intakeapp.StorefrontOrderResult, deliveries)
		for j := range deliveries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res, err := intakeReceive(app, org, intakeOrderOf(int64(1<<60+i), "SKU-1", "SKU-2", "SKU-3"))
				if err != nil {
					t.Errorf("order %d delivery %d: %v", i, j, err)
				}
				answers[i][j] = res
			}()
		}
	}
	close(start)
	wg.Wait()
	for i, as := range answers {
		fresh := 0
		for _, a := range as {
			if a.ShipmentID == "" || a.ShipmentID != as[0].ShipmentID {
				t.Fatalf("order %d: answers disagree: %+v", i, as)
			}
			if !a.Duplicate {
				fresh++
			}
		}
		if fresh != 1 {
			t.Errorf("order %d: %d answers without duplicate, want 1", i, fresh)
		}
		if n := scanQuery[int](t, db, "SELECT count(*) FROM shipments WHERE organization_id = ? AND source_order_id = ?", org, int64(1<<60+i)); n != 1 {
			t.Errorf("order %d: %d shipments, want 1", i, n)
		}
	}
	if n := scanQuery[int](t, db, "SELECT count(*) FROM order_receipts WHERE organization_id = ? AND status = 'succeeded' AND attempts = 1", org); n != orders {
		t.Errorf("%d receipts succeeded after one attempt, want %d", n, orders)
	}
	// Every line of every order was reserved once: 50 × 1 of SKU-1.
	if n := scanQuery[int](t, db, "SELECT reserved FROM product_stock WHERE product_id = ?", org+"_p1"); n != orders {
		t.Errorf("reserved %d of SKU-1, want %d", n, orders)
	}
}

// TestClaimResolvesTheOrder checks what the intake's claim reads: the
// organization's products by SKU, and the warehouse rule of
// intakeports.OrderResolution.
func TestClaimResolvesTheOrder(t *testing.T) {
	db := pgtest.Open(t, testDSN)
	ctx := context.Background()
	org, other := intakeOrgID(t), intakeOrgID(t)
	intakeSeed(t, org, 2) // Alpha and Zulu, default Zulu; SKU-1 and SKU-2
	intakeSeed(t, other, 3)
	receipts := postgres.NewRepositories(db, pgintake.Repositories).Receipts
	order := int64(0)
	claim := func(org string, skus []string) intakeports.OrderResolution {
		t.Helper()
		order++
		_, res, err := receipts.Claim(ctx, intake.OrderDelivery{OrganizationID: org, OrderID: order, TraceID: "t", ReceivedAt: time.Now()}, skus)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	skus := []string{"SKU-3", "SKU-1", "absent", "SKU-2"}
	want := func(label, id string) {
		t.Helper()
		res := claim(org, skus)
		if len(res.Products) != 2 || res.Products["SKU-1"].ID != org+"_p1" || res.Products["SKU-2"].ID != org+"_p2" {
			t.Fatalf("%s: products %+v, want SKU-1 and SKU-2 of %s only", label, res.Products, org)
		}
		switch {
		case id == "" && res.Warehouse != nil:
			t.Fatalf("%s: warehouse %+v, want none", label, *res.Warehouse)
		case id != "" && (res.Warehouse == nil || res.Warehouse.ID != id):
			t.Fatalf("%s: warehouse %v, want %s", label, res.Warehouse, id)
		}
	}
	want("default set and active", org+"_wh2")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec("UPDATE warehouses SET active = false WHERE id = ?", org+"_wh2")
	want("default inactive: first active by name", org+"_wh1")
	exec("UPDATE organizations SET default_warehouse_id = NULL WHERE id = ?", org)
	exec("UPDATE warehouses SET active = true WHERE id = ?", org+"_wh2")
	want("no default: first active by name", org+"_wh1")
	exec("UPDATE warehouses SET active = false WHERE id IN (?, ?)", org+"_wh1", org+"_wh2")
	want("no active warehouse", "")
	if res := claim(other, nil); len(res.Products) != 0 || res.Warehouse == nil || *res.Warehouse != (domain.WarehouseRef{ID: other + "_wh2", Name: "Zulu"}) {
		t.Fatalf("another organization, no SKUs: %+v", res)
	}
}

// The repository's one-statement claim and failure record are the domain's
// rules (intake.ClaimOrderReceipt, intake.RecordFailedDelivery): a life of
// one order's deliveries, applied to the database and to the domain alone,
// leaves the same receipt after every step.
func TestOrderReceiptStatementsFollowTheDomain(t *testing.T) {
	db, org := intakeSeeded(t, 0)
	uow := postgres.NewUnitOfWork(db, pgintake.Repositories)
	ctx := context.Background()
	num := int64(1234)
	at := time.Now().UTC().Truncate(time.Millisecond)
	delivery := func(i int, number *int64) intake.OrderDelivery {
		return intake.OrderDelivery{OrganizationID: org, OrderID: 77, OrderNumber: number, TraceID: fmt.Sprintf("trace-%d", i),
			ReceivedAt: at.Add(time.Duration(i%3) * time.Minute)} // times out of order, as redeliveries come
	}
	var model *intake.OrderReceipt
	steps := []struct {
		name string
		run  func(i int) error
	}{
		{"first delivery refused in its transaction", func(i int) error {
			d := delivery(i, nil)
			model = intake.ClaimOrderReceipt(model, d)
			if err := model.Fail("unknown_skus", nil); err != nil {
				return err
			}
			return uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
				rec, _, err := r.Receipts.Claim(ctx, d, nil)
				if err != nil {
					return err
				}
				if err := rec.Fail("unknown_skus", nil); err != nil {
					return err
				}
				return r.Receipts.Finish(ctx, rec)
			})
		}},
		{"a delivery that failed outside its transaction", func(i int) error {
			d := delivery(i, &num)
			model = intake.RecordFailedDelivery(model, d, "unavailable")
			return uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
				_, err := r.Receipts.RecordFailure(ctx, d, "unavailable")
				return err
			})
		}},
		{"a delivery that succeeds (skipped)", func(i int) error {
			d := delivery(i, nil)
			model = intake.ClaimOrderReceipt(model, d)
			if err := model.Skip(intake.SkipOrderCancelled); err != nil {
				return err
			}
			return uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
				rec, _, err := r.Receipts.Claim(ctx, d, nil)
				if err != nil {
					return err
				}
				if err := rec.Skip(intake.SkipOrderCancelled); err != nil {
					return err
				}
				return r.Receipts.Finish(ctx, rec)
			})
		}},
		{"a duplicate", func(i int) error {
			d := delivery(i, nil)
			model = intake.ClaimOrderReceipt(model, d)
			return uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
				rec, _, err := r.Receipts.Claim(ctx, d, nil)
				if err == nil && !rec.Duplicate() {
					err = errors.New("the claim of a succeeded receipt is not a duplicate")
				}
				return err
			})
		}},
		{"a failure after the success", func(i int) error {
			d := delivery(i, nil)
			model = intake.RecordFailedDelivery(model, d, "unavailable")
			return uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) error {
				_, err := r.Receipts.RecordFailure(ctx, d, "unavailable")
				return err
			})
		}},
	}
	for i, step := range steps {
		if err := step.run(i); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		var stored *intake.OrderReceipt
		err := uow.Do(ctx, func(ctx context.Context, r intakeports.Repositories) (err error) {
			stored, err = r.Receipts.Get(ctx, org, 77)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stored, model) {
			t.Fatalf("after %s:\nstored %+v\ndomain %+v", step.name, stored, model)
		}
	}
}
