package warehouse_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

var recvT0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// recvFixture: wh_a serves org_ship_a (ShipFixture's world), wh_b serves
// org_ship_b only.
func recvHandler(db *apptest.DB, hooks apptest.Billing) *warehouseapp.RecordWarehouseReceiptHandler {
	return warehouseapp.NewRecordWarehouseReceiptHandler(apptest.UnitOfWork(db, apptest.WarehouseRepositories), &apptest.Clock{At: recvT0}, &apptest.IDs{}, hooks)
}

func recvCommand() warehouseapp.RecordWarehouseReceipt {
	return warehouseapp.RecordWarehouseReceipt{
		WarehouseID: "wh_a", OrganizationID: "org_ship_a", Reference: "ASN-1",
		Lines: []warehouse.ReceiptLine{
			{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 10},
			{Kind: shipping.KindCarton, ItemID: "ctn_1", Quantity: 3},
		},
	}
}

func TestRecordWarehouseReceiptRaisesOnHand(t *testing.T) {
	db := apptest.ShipFixture()
	at := recvT0.Add(-3 * time.Hour)
	c := recvCommand()
	c.ReceivedAt = &at
	res, err := recvHandler(db, apptest.Billing{}).Handle(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Report.ID() != "rcv_1" || res.Report.Lines()[0].SKU != "TEE-BLK-M" || res.Report.Lines()[1].SKU != "CTN-TEE-24" {
		t.Fatalf("result %+v, lines %+v", res, res.Report.Lines())
	}
	if got := db.Level("wh_a", "prod_1").OnHand; got != 10 {
		t.Errorf("prod_1 on hand %d, want 10", got)
	}
	if got := db.Level("wh_a", "ctn_1").OnHand; got != 5+3 {
		t.Errorf("ctn_1 on hand %d, want 8", got)
	}
	want := []apptest.Movement{
		{Org: "org_ship_a", Warehouse: "wh_a", Reason: shipping.MovementReceipt, Delta: shipping.StockDelta{Kind: shipping.KindProduct, ItemID: "prod_1", Quantity: 10}, At: at},
		{Org: "org_ship_a", Warehouse: "wh_a", Reason: shipping.MovementReceipt, Delta: shipping.StockDelta{Kind: shipping.KindCarton, ItemID: "ctn_1", Quantity: 3}, At: at},
	}
	if got := db.Movements(); !reflect.DeepEqual(got, want) {
		t.Fatalf("movements %+v, want %+v", got, want)
	}
}

func TestRecordWarehouseReceiptIsIdempotentOnItsReference(t *testing.T) {
	db := apptest.ShipFixture()
	h := recvHandler(db, apptest.Billing{})
	first, err := h.Handle(context.Background(), recvCommand())
	if err != nil {
		t.Fatal(err)
	}
	retry := recvCommand()
	retry.Lines[0], retry.Lines[1] = retry.Lines[1], retry.Lines[0]
	again, err := h.Handle(context.Background(), retry)
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.Report.ID() != first.Report.ID() {
		t.Fatalf("retry: created %v, receipt %s, want the first, %s", again.Created, again.Report.ID(), first.Report.ID())
	}
	if got := db.Level("wh_a", "prod_1").OnHand; got != 10 || len(db.Movements()) != 2 {
		t.Fatalf("after a retry: on hand %d, %d movements; want 10 and 2", got, len(db.Movements()))
	}

	other := recvCommand()
	other.Lines[0].Quantity = 11
	commits := db.Commits
	if _, err := h.Handle(context.Background(), other); !errors.Is(err, warehouse.ErrReferenceConflict) {
		t.Fatalf("other content: %v, want reference conflict", err)
	}
	if db.Commits != commits || db.Level("wh_a", "prod_1").OnHand != 10 {
		t.Fatal("a conflict wrote")
	}

	// Another warehouse may use the same reference.
	db.AddWarehouse("wh_c", "North", true, "org_ship_a")
	c := recvCommand()
	c.WarehouseID = "wh_c"
	if res, err := h.Handle(context.Background(), c); err != nil || !res.Created {
		t.Fatalf("same reference at another warehouse: %+v, %v", res, err)
	}
}

func TestRecordWarehouseReceiptRefuses(t *testing.T) {
	future, past := recvT0.Add(time.Minute), recvT0.Add(-time.Hour)
	checkRefusals(t, recvCommand, recvHandler, (*warehouseapp.RecordWarehouseReceiptHandler).Handle, func(db *apptest.DB) bool {
		return db.Commits != 0 || db.WarehouseReceipts() != 0 || len(db.Movements()) != 0 || db.Level("wh_a", "ctn_1").OnHand != 5
	}, []refusal[warehouseapp.RecordWarehouseReceipt]{
		{"future receivedAt", func(c *warehouseapp.RecordWarehouseReceipt) { c.ReceivedAt = &future }, apptest.Billing{}, domain.KindInvalid},
		{"no items", func(c *warehouseapp.RecordWarehouseReceipt) { c.Lines = nil }, apptest.Billing{}, domain.KindInvalid},
		{"another organization's warehouse", func(c *warehouseapp.RecordWarehouseReceipt) { c.WarehouseID = "wh_b" }, apptest.Billing{}, domain.KindInvalidWarehouse},
		{"an unknown organization", func(c *warehouseapp.RecordWarehouseReceipt) { c.OrganizationID = "org_none" }, apptest.Billing{}, domain.KindInvalidWarehouse},
		{"another organization's product", func(c *warehouseapp.RecordWarehouseReceipt) { c.Lines[0].ItemID = "prod_b" }, apptest.Billing{}, domain.KindUnknownItems},
		{"a product named as a carton", func(c *warehouseapp.RecordWarehouseReceipt) { c.Lines[1].ItemID = "prod_2" }, apptest.Billing{}, domain.KindUnknownItems},
		{"dated into a closed period", func(c *warehouseapp.RecordWarehouseReceipt) { c.ReceivedAt = &past }, apptest.Billing{
			PeriodClosed: func(context.Context, warehouseports.Repositories, string, time.Time) (bool, error) { return true, nil },
		}, domain.KindPeriodClosed},
		{"charges failing", func(c *warehouseapp.RecordWarehouseReceipt) {}, apptest.Billing{
			ReceiptCharges: func(context.Context, warehouseports.Repositories, *warehouse.Receipt) error {
				return domain.ErrUnavailable
			},
		}, domain.KindUnavailable},
	})
}

func TestRecordWarehouseReceiptRunsItsHooksOncePerReceipt(t *testing.T) {
	db := apptest.ShipFixture()
	var mu sync.Mutex
	calls := map[string]int{}
	count := func(name string) { mu.Lock(); calls[name]++; mu.Unlock() }
	at := recvT0.Add(-time.Hour)
	hooks := apptest.Billing{
		PeriodClosed: func(_ context.Context, _ warehouseports.Repositories, org string, got time.Time) (bool, error) {
			if org != "org_ship_a" || !got.Equal(at) {
				t.Errorf("PeriodClosed(%s, %v)", org, got)
			}
			count("period")
			return false, nil
		},
		ReceiptCharges: func(context.Context, warehouseports.Repositories, *warehouse.Receipt) error {
			count("charges")
			return nil
		},
	}
	h := recvHandler(db, hooks)
	c := recvCommand()
	c.ReceivedAt = &at
	for range 2 {
		if _, err := h.Handle(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	calls["event"] = len(db.Recorded())
	if want := map[string]int{"period": 1, "charges": 1, "event": 1}; !reflect.DeepEqual(calls, want) {
		t.Fatalf("hooks ran %v, want %v", calls, want)
	}
}

// inventory.received: once per new warehouse receipt, none for its retry.
func TestReceiptEvent(t *testing.T) {
	db := apptest.ShipFixture()
	h := recvHandler(db, apptest.Billing{})
	for range 2 {
		if _, err := h.Handle(context.Background(), recvCommand()); err != nil {
			t.Fatal(err)
		}
	}
	got := db.Recorded()
	apptest.WantEvents(t, got, "inventory.received rcv_1")
	if r := got[0].Data.(*warehouse.Receipt); r.Reference() != "ASN-1" || got[0].OrganizationID != "org_ship_a" || !got[0].Time.Equal(recvT0) {
		t.Fatalf("event %+v", got[0])
	}
}
