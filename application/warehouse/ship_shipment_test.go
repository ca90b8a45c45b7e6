package warehouse_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	warehouseapp "github.com/acme3pl/fulfillment/application/warehouse"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
	warehouseports "github.com/acme3pl/fulfillment/ports/warehouse"
)

func shipShip(app *apptest.App, warehouse, id, carrier, number string) (warehouseapp.ShipResult, error) {
	return app.Warehouse.ShipShipment.Handle(context.Background(), warehouseapp.ShipShipment{
		WarehouseID: warehouse, ShipmentID: id, Carrier: carrier, TrackingNumber: number,
	})
}

func TestShipConsumesTheReservation(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	id := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 3), apptest.ShipLine("ctn_2", 2)))
	clock.At = apptest.ShipT0.Add(time.Hour)
	res, err := shipShip(app, "wh_a", id, " UPS ", "1Z999")
	if err != nil {
		t.Fatal(err)
	}
	s := res.Shipment
	if res.Replay || s.Status() != shipping.ShipmentShipped || !s.ShippedAt().Equal(clock.At) || !s.UpdatedAt().Equal(clock.At) ||
		*s.Tracking() != (shipping.Tracking{Carrier: "UPS", Number: "1Z999"}) {
		t.Fatalf("replay %v status %s shipped %v tracking %+v", res.Replay, s.Status(), s.ShippedAt(), s.Tracking())
	}
	db.WantLevel(t, "wh_a", "ctn_1", apptest.StockLevel{OnHand: 2, Reserved: 0}, "on hand 2 reserved 0")
	db.WantLevel(t, "wh_a", "ctn_2", apptest.StockLevel{OnHand: 0, Reserved: 0}, "on hand 0 reserved 0")
	if got := len(db.Movements()); got != 2 {
		t.Fatalf("%d movements, want 2", got)
	}
	for _, m := range db.Movements() {
		if m.Reason != shipping.MovementShipment || m.Delta.Kind != shipping.KindCarton || m.Delta.Quantity >= 0 || !m.At.Equal(clock.At) {
			t.Errorf("movement %+v", m)
		}
	}
	// The organization may no longer cancel it.
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("cancel after ship: %v, want ErrInvalidState", err)
	}
}

func TestShipAgainIsAReplay(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	id := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	first, err := shipShip(app, "wh_a", id, "UPS", "1Z1")
	if err != nil {
		t.Fatal(err)
	}
	commits := db.Commits
	clock.At = apptest.ShipT0.Add(time.Hour)
	again, err := shipShip(app, "wh_a", id, "UPS", "1Z1")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Replay || !again.Shipment.ShippedAt().Equal(*first.Shipment.ShippedAt()) || !again.Shipment.UpdatedAt().Equal(first.Shipment.UpdatedAt()) {
		t.Fatalf("replay %v shipped %v updated %v", again.Replay, again.Shipment.ShippedAt(), again.Shipment.UpdatedAt())
	}
	if l := db.Level("wh_a", "ctn_1"); l.OnHand != 4 || len(db.Movements()) != 1 {
		t.Fatalf("ctn_1 %+v, %d movements: the replay changed the stock", l, len(db.Movements()))
	}
	if db.Commits != commits+1 {
		t.Fatalf("%d commits, want one more (an empty transaction)", db.Commits-commits)
	}
	if _, err := shipShip(app, "wh_a", id, "UPS", "1Z2"); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("ship with another number: %v, want ErrInvalidState", err)
	}
}

func TestShipRefusals(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	draft := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	cancelled := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	if _, err := apptest.ShipCancel(app, "org_ship_a", cancelled); err != nil {
		t.Fatal(err)
	}
	pending := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	// Pick & Pack is reserved without a check: on hand 0 when it ships.
	backorder := apptest.ShipPending(t, app, apptest.ShipPickPack(apptest.ShipLine("prod_1", 2), apptest.ShipLine("prod_2", 1)))
	var short *shipping.OnHandShortageError
	var invalid *domain.ValidationError
	tests := []struct {
		name                string
		warehouse, id       string
		carrier, number     string
		wantIs              error
		wantAs              any
		wantShortItems      int
		wantInvalidArgument string
	}{
		{"a draft", "wh_a", draft, "UPS", "1", domain.ErrInvalidState, nil, 0, ""},
		{"a cancelled shipment", "wh_a", cancelled, "UPS", "1", domain.ErrInvalidState, nil, 0, ""},
		{"another warehouse's shipment", "wh_b", pending, "UPS", "1", domain.ErrNotFound, nil, 0, ""},
		{"an unknown shipment", "wh_a", "shp_404", "UPS", "1", domain.ErrNotFound, nil, 0, ""},
		{"an ID no shipment has", "wh_a", "a b", "UPS", "1", domain.ErrNotFound, nil, 0, ""},
		{"no carrier", "wh_a", pending, " ", "1", nil, &invalid, 0, "carrier"},
		{"no number", "wh_a", pending, "UPS", "", nil, &invalid, 0, "trackingNumber"},
		{"on hand short", "wh_a", backorder, "UPS", "1", nil, &short, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commits := db.Commits
			_, err := shipShip(app, tt.warehouse, tt.id, tt.carrier, tt.number)
			switch {
			case tt.wantIs != nil && !errors.Is(err, tt.wantIs):
				t.Fatalf("error %v, want %v", err, tt.wantIs)
			case tt.wantAs != nil && !errors.As(err, tt.wantAs):
				t.Fatalf("error %v, want %T", err, tt.wantAs)
			}
			if tt.wantShortItems > 0 && len(short.Items) != tt.wantShortItems {
				t.Fatalf("short items %+v", short.Items)
			}
			if tt.wantInvalidArgument != "" && invalid.Field != tt.wantInvalidArgument {
				t.Fatalf("invalid %s, want %s", invalid.Field, tt.wantInvalidArgument)
			}
			if db.Commits != commits {
				t.Fatal("a refused ship committed")
			}
		})
	}
	if l := db.Level("wh_a", "prod_1"); l != (apptest.StockLevel{OnHand: 0, Reserved: 2}) {
		t.Fatalf("prod_1 %+v after the refused ship", l)
	}
}

func TestListWarehouseShipments(t *testing.T) {
	db := apptest.ShipFixture()
	db.State.Orgs["org_ship_a"] = domain.Organization{ID: "org_ship_a", Name: "Acme"}
	app, clock := apptest.ShipApp(db, domain.Sandbox)
	var ids []string
	for i := range 3 {
		clock.At = apptest.ShipT0.Add(time.Duration(3-i) * time.Minute) // submitted in reverse of creation
		ids = append(ids, apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1))))
	}
	apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1))) // a draft is not the warehouse's
	list := func(q warehouseapp.ListWarehouseShipments) (warehouseapp.ShipmentPage, error) {
		return app.Warehouse.ListWarehouseShipments.Handle(context.Background(), q)
	}
	page, err := list(warehouseapp.ListWarehouseShipments{WarehouseID: "wh_a", Page: ports.Page{Take: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || !page.More || page.Items[0].Shipment.ID() != ids[2] || page.Items[1].Shipment.ID() != ids[1] ||
		page.Items[0].OrganizationName != "Acme" {
		t.Fatalf("page %+v more %v, want %s then %s (oldest submission first)", page.Items, page.More, ids[2], ids[1])
	}
	if page, err = list(warehouseapp.ListWarehouseShipments{WarehouseID: "wh_b", Page: ports.Page{Take: 10}}); err != nil || len(page.Items) != 0 {
		t.Fatalf("another warehouse: %+v %v", page.Items, err)
	}
	_, err = list(warehouseapp.ListWarehouseShipments{WarehouseID: "wh_a", Status: shipping.ShipmentDraft, Page: ports.Page{Take: 1}})
	domaintest.MatchField(t, err, "status")
}

// Billing's port and the outbox run in the ship's transaction, once per
// shipment shipped: never for a replay, and a failing hook ships nothing.
func TestShipRunsItsHooksOnce(t *testing.T) {
	db := apptest.ShipFixture()
	clock := &apptest.Clock{At: apptest.ShipT0}
	var charged []string
	fail := false
	hooks := apptest.Billing{
		ShipmentCharges: func(_ context.Context, _ warehouseports.Repositories, s *shipping.Shipment) error {
			if fail {
				return errors.New("rate card unreadable")
			}
			charged = append(charged, s.ID()+"/"+string(s.Status()))
			return nil
		},
	}
	app, _ := apptest.ShipApp(db, domain.Sandbox)
	ship := warehouseapp.NewShipShipmentHandler(apptest.UnitOfWork(db, apptest.WarehouseRepositories), clock, hooks)
	id := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	other := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_2", 1)))
	for range 2 {
		if _, err := ship.Handle(context.Background(), warehouseapp.ShipShipment{WarehouseID: "wh_a", ShipmentID: id, Carrier: "UPS", TrackingNumber: "1"}); err != nil {
			t.Fatal(err)
		}
	}
	var events []string
	for _, e := range db.Recorded() {
		if e.Type == eventsports.EventShipmentShipped {
			events = append(events, e.Subject)
		}
	}
	if len(charged) != 1 || charged[0] != id+"/shipped" || len(events) != 1 {
		t.Fatalf("charged %v, events %v: want one of each for the first ship", charged, events)
	}
	fail = true
	if _, err := ship.Handle(context.Background(), warehouseapp.ShipShipment{WarehouseID: "wh_a", ShipmentID: other, Carrier: "UPS", TrackingNumber: "2"}); err == nil {
		t.Fatal("a failing charge hook shipped")
	}
	if l := db.Level("wh_a", "ctn_2"); l != (apptest.StockLevel{OnHand: 2, Reserved: 1}) {
		t.Fatalf("ctn_2 %+v after a failed ship, want untouched", l)
	}
}

// shipment.shipped: once per ship, none for its replay, after the created
// event of the same subject.
func TestShippedEvent(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	ship := warehouseapp.NewShipShipmentHandler(apptest.UnitOfWork(db, apptest.WarehouseRepositories), clock, apptest.Billing{})
	id := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	clock.At = apptest.ShipT0.Add(2 * time.Hour)
	for range 2 {
		if _, err := ship.Handle(context.Background(), warehouseapp.ShipShipment{WarehouseID: "wh_a", ShipmentID: id, Carrier: "UPS", TrackingNumber: "1Z"}); err != nil {
			t.Fatal(err)
		}
	}
	got := db.Recorded()
	apptest.WantEvents(t, got, "shipment.created "+id, "shipment.shipped "+id)
	if s := got[1].Data.(*shipping.Shipment); s.Status() != shipping.ShipmentShipped || !got[1].Time.Equal(clock.At) {
		t.Fatalf("shipped event: %s at %v", s.Status(), got[1].Time)
	}
}
