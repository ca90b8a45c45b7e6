package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"testing"

	"github.com/uptrace/bun"

	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/shipping"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

// shipRaceFixture seeds an organization of its own per race, named after
// name (shipNamer), with cartons A and B at one warehouse.
func shipRaceFixture(t *testing.T, name string, onHandA, onHandB int64) (org, wh, a, b string) {
	t.Helper()
	org = shipNamer()(name)
	wh, a, b = "wh_"+org, "ctn_"+org+"_a", "ctn_"+org+"_b"
	load(t, fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: org, Name: org}},
		Warehouses:    []fixtureports.Warehouse{{Warehouse: shipWarehouse(wh, "Race DC", true), Organizations: []string{org}}},
		Inventory:     []shipping.InventoryItem{shipItem(org, shipping.KindCarton, a, "A-"+org), shipItem(org, shipping.KindCarton, b, "B-"+org)},
		Stock: []shipping.Stock{
			{WarehouseID: wh, Kind: shipping.KindCarton, ItemID: a, OnHand: onHandA},
			{WarehouseID: wh, Kind: shipping.KindCarton, ItemID: b, OnHand: onHandB},
		},
	})
	return org, wh, a, b
}

// shipPendingSum is Σ quantity of the pending shipments' lines per carton.
func shipPendingSum(t *testing.T, db *bun.DB, org string) (count int, byCarton map[string]int64) {
	t.Helper()
	rows := scanQuery[[]struct {
		CartonID string `bun:"carton_id"`
		Sum      int64  `bun:"sum"`
	}](t, db, "SELECT c.carton_id, sum(c.quantity) AS sum FROM shipment_cartons AS c JOIN shipments AS s ON s.id = c.shipment_id "+
		"WHERE s.organization_id = ? AND s.status = 'pending' GROUP BY c.carton_id", org)
	byCarton = map[string]int64{}
	for _, r := range rows {
		byCarton[r.CartonID] = r.Sum
	}
	count = scanQuery[int](t, db, "SELECT count(*) FROM shipments WHERE organization_id = ? AND status = 'pending'", org)
	return count, byCarton
}

// shipRun is pgtest.Run.
func shipRun(fns []func() error) []error { return pgtest.Run(fns) }

// shipRunSame is pgtest.RunSame.
func shipRunSame[R any](t *testing.T, what string, calls []func() (R, error), fresh func(R) bool, key func(R) string) int {
	t.Helper()
	return pgtest.RunSame(t, what, calls, fresh, key)
}

// THE RACE: many submitters of SPD drafts compete for the same cartons
// through the real use case and the real database. Exactly the ones that
// fit succeed; the others are refused with insufficient_stock; nothing is
// ever reserved beyond what is on hand.
func TestSubmitRaceNeverOverReserves(t *testing.T) {
	const submitters = 24
	org, wh, a, b := shipRaceFixture(t, "org_ship_race", 10, 7) // B is the bottleneck: 7 fit
	db := shipDB(t, 12)
	u := newShipUseCases(db)
	ids := make([]string, submitters)
	for i := range ids {
		// Half of the drafts list B first: the adapter locks in one order whatever the draft's.
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		ids[i] = u.draft(t, org, wh, shipping.ShipmentLine{ItemID: first, Quantity: 1}, shipping.ShipmentLine{ItemID: second, Quantity: 1})
	}
	fns := make([]func() error, submitters)
	for i, id := range ids {
		fns[i] = func() error {
			_, err := u.submit.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: id})
			return err
		}
	}
	errs := shipRun(fns)
	ok := 0
	for i, err := range errs {
		var ise *shipping.InsufficientStockError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &ise):
			if len(ise.Items) != 1 || ise.Items[0].ItemID != b || ise.Items[0].Available != 0 || ise.Items[0].Requested != 1 {
				t.Errorf("submitter %d: shortages %+v, want B with 0 available", i, ise.Items)
			}
		default:
			t.Errorf("submitter %d: %v (only insufficient stock is an acceptable refusal)", i, err)
		}
	}
	if ok != 7 {
		t.Fatalf("%d submissions succeeded, want exactly 7", ok)
	}
	shipWantStock(t, db, "carton_stock", wh, a, 10, 7)
	shipWantStock(t, db, "carton_stock", wh, b, 7, 7)
	count, sums := shipPendingSum(t, db, org)
	if count != 7 || sums[a] != 7 || sums[b] != 7 {
		t.Fatalf("%d pending shipments holding %v, want 7 holding 7 of each", count, sums)
	}
}

// Submissions race cancellations of pending shipments for the same two
// cartons: locks are taken in one order by both, so nothing deadlocks, and
// reserved always equals what pending shipments hold.
func TestSubmitAndCancelRace(t *testing.T) {
	org, wh, a, b := shipRaceFixture(t, "org_ship_race_cancel", 8, 8)
	db := shipDB(t, 12)
	u := newShipUseCases(db)
	lines := func(i int) []shipping.ShipmentLine {
		if i%2 == 0 {
			return []shipping.ShipmentLine{{ItemID: a, Quantity: 1}, {ItemID: b, Quantity: 1}}
		}
		return []shipping.ShipmentLine{{ItemID: b, Quantity: 1}, {ItemID: a, Quantity: 1}}
	}
	var pending, drafts []string
	for i := range 8 {
		id := u.draft(t, org, wh, lines(i)...)
		if _, err := u.submit.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: id}); err != nil {
			t.Fatal(err)
		}
		pending = append(pending, id)
	}
	for i := range 16 {
		drafts = append(drafts, u.draft(t, org, wh, lines(i)...))
	}
	shipWantStock(t, db, "carton_stock", wh, a, 8, 8)

	var fns []func() error
	for i := range 16 {
		fns = append(fns, func() error {
			_, err := u.submit.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: drafts[i]})
			return err
		})
		if i < len(pending) {
			fns = append(fns, func() error {
				_, err := u.cancel.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: pending[i]})
				if err != nil {
					return fmt.Errorf("cancel: %w", err)
				}
				return nil
			})
		}
	}
	errs := shipRun(fns)
	for i, err := range errs {
		var ise *shipping.InsufficientStockError
		if err != nil && !errors.As(err, &ise) {
			t.Errorf("operation %d: %v", i, err)
		}
	}
	count, sums := shipPendingSum(t, db, org)
	if count > 8 || sums[a] != int64(count) || sums[b] != int64(count) {
		t.Fatalf("%d pending shipments holding %v", count, sums)
	}
	shipWantStock(t, db, "carton_stock", wh, a, 8, int64(count))
	shipWantStock(t, db, "carton_stock", wh, b, 8, int64(count))
}

// Concurrent submissions of one draft: the shipment row lock lets exactly
// one through; the others find it pending (409).
func TestConcurrentSubmitsOfOneDraft(t *testing.T) {
	org, wh, a, _ := shipRaceFixture(t, "org_ship_race_one", 100, 100)
	db := shipDB(t, 8)
	u := newShipUseCases(db)
	id := u.draft(t, org, wh, shipping.ShipmentLine{ItemID: a, Quantity: 3})
	// Submitting it reserves exactly once; cancelling it then releases
	// exactly once, however many cancel at once.
	for _, step := range []struct {
		who, what string
		do        func() error
		reserved  int64
	}{
		{"submitter", "submissions of one draft", func() error {
			_, err := u.submit.Handle(context.Background(), shippingapp.SubmitShipment{OrganizationID: org, ShipmentID: id})
			return err
		}, 3},
		{"canceller", "cancellations", func() error {
			_, err := u.cancel.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: org, ShipmentID: id})
			return err
		}, 0},
	} {
		fns := make([]func() error, 8)
		for i := range fns {
			fns[i] = step.do
		}
		ok := 0
		for i, err := range shipRun(fns) {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, domain.ErrInvalidState):
				t.Errorf("%s %d: %v", step.who, i, err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d %s succeeded, want 1", ok, step.what)
		}
		shipWantStock(t, db, "carton_stock", wh, a, 100, step.reserved)
	}
}
