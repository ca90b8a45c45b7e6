package warehouse_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgfixture "github.com/acme3pl/fulfillment/adapters/postgres/fixture"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/application"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	whside "github.com/acme3pl/fulfillment/domain/warehouse"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// On hand of one item at one warehouse never passes warehouse.MaxOnHand.
// Receipts that each fit but together would pass it, sent at once through
// several "server instances", a second session holding the stock row so
// that they all wait for it: exactly those that fit are accepted, the
// others refused as an invalid parameter naming their line's quantity,
// nothing of them written.
func TestReceiptsRacingPastTheOnHandBound(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	const q, fit, sent = 100_000_000, 5, 12
	db := pgtest.Pool(t, testDSN, 2)
	if _, err := db.ExecContext(context.Background(), `INSERT INTO product_stock (organization_id, product_id, warehouse_id, on_hand)
		VALUES (?, ?, ?, ?)`, w.org, w.prod, w.wh, whside.MaxOnHand-fit*q); err != nil {
		t.Fatal(err)
	}
	holder := pgtest.Holder(t, db, fmt.Sprintf(`SELECT 1 FROM product_stock WHERE product_id = '%s' FOR UPDATE`, w.prod))
	var wg sync.WaitGroup
	errs := make(chan error, sent)
	for i := range sent {
		uc := recvUseCase(pgtest.Pool(t, testDSN, 1), noBilling{})
		wg.Go(func() {
			_, err := uc.Handle(context.Background(), warehouseapp.RecordWarehouseReceipt{
				WarehouseID: w.wh, OrganizationID: w.org, Reference: fmt.Sprintf("ASN-BOUND-%d", i),
				Lines: []whside.ReceiptLine{{Kind: shipping.KindCarton, ItemID: w.ctn, Quantity: 1}, {Kind: shipping.KindProduct, ItemID: w.prod, Quantity: q}},
			})
			errs <- err
		})
	}
	pgtest.WaitForLockWaiters(t, db, sent)
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	accepted := 0
	for err := range errs {
		var ve *domain.ValidationError
		switch {
		case err == nil:
			accepted++
		case application.KindOf(err) != domain.KindOnHandBound || !errors.As(err, &ve) || ve.Field != "items[1].quantity":
			t.Errorf("a receipt past the bound: %v (%s), want on hand bound naming items[1].quantity", err, application.KindOf(err))
		}
	}
	if accepted != fit {
		t.Fatalf("%d receipts accepted, want %d", accepted, fit)
	}
	pgtest.WantStock(t, db, "product_stock", w.wh, w.prod, whside.MaxOnHand, 0)
	pgtest.WantStock(t, db, "carton_stock", w.wh, w.ctn, 100+fit, 0)
	if n := pgtest.ScanQuery[int](t, db, `SELECT count(*) FROM warehouse_receipts WHERE organization_id = ?`, w.org); n != fit {
		t.Fatalf("%d receipts stored, want %d", n, fit)
	}
}

// A balance past the bound is refused by the database itself, whatever
// statement writes it; a fixture row past it is refused and its load
// writes nothing.
func TestStockTablesHoldTheOnHandBound(t *testing.T) {
	w := recvFixture(t, time.Now().Add(-time.Hour))
	db := pgtest.Pool(t, testDSN, 1)
	if _, err := db.ExecContext(context.Background(), `UPDATE carton_stock SET on_hand = ? WHERE carton_id = ?`,
		whside.MaxOnHand+1, w.ctn); err == nil {
		t.Fatal("carton_stock took on hand past the bound")
	}
	n := pgtest.Namer()
	doc := recvFixtureDoc(recvWorld{org: n("org_big"), wh: n("wh_big"), other: n("wh_big_x"), prod: n("prod_big"), ctn: n("ctn_big")}, time.Now())
	doc.Stock[0].OnHand = whside.MaxOnHand + 1
	err := postgres.NewUnitOfWork(db, pgfixture.Repositories).Do(context.Background(), func(ctx context.Context, r fixtureports.Repositories) error {
		_, err := r.Fixtures.Load(ctx, doc)
		return err
	})
	if !errors.Is(err, whside.ErrOnHandBound) {
		t.Fatalf("a fixture row past the bound: %v", err)
	}
	if k := pgtest.ScanQuery[int](t, db, `SELECT count(*) FROM organizations WHERE id = ?`, doc.Organizations[0].ID); k != 0 {
		t.Fatal("the refused fixture wrote its organization")
	}
}
