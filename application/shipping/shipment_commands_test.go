package shipping_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/application/apptest"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestCreateShipmentStoresADraft(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	s, err := app.Shipping.CreateShipment.Handle(context.Background(),
		apptest.ShipPickPack(apptest.ShipLine("prod_2", 1), apptest.ShipLine("prod_1", 2), apptest.ShipLine("prod_2", 3)))
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != "shp_1" || s.Kind() != shipping.PickPack || s.Status() != shipping.ShipmentDraft || !s.Test() {
		t.Fatalf("shipment %s kind %s status %s test %v", s.ID(), s.Kind(), s.Status(), s.Test())
	}
	if s.Warehouse() != (domain.WarehouseRef{ID: "wh_a", Name: "East"}) {
		t.Fatalf("warehouse %+v", s.Warehouse())
	}
	want := []shipping.ShipmentLine{{ItemID: "prod_2", SKU: "TEE-WHT-L", Quantity: 4}, {ItemID: "prod_1", SKU: "TEE-BLK-M", Quantity: 2}}
	if !reflect.DeepEqual(s.Lines(), want) {
		t.Fatalf("lines %s, want %s", apptest.ShipLinesString(s.Lines()), apptest.ShipLinesString(want))
	}
	if !s.CreatedAt().Equal(apptest.ShipT0) || s.SubmittedAt() != nil || s.Notes() != "leave at door" || s.Address().Name != "Ada" {
		t.Fatalf("created %v submitted %v notes %q address %+v", s.CreatedAt(), s.SubmittedAt(), s.Notes(), s.Address())
	}
	got, err := app.Shipping.GetShipment.Handle(context.Background(), shippingapp.GetShipment{OrganizationID: "org_ship_a", ShipmentID: "shp_1"})
	if err != nil || !reflect.DeepEqual(got.Lines(), want) {
		t.Fatalf("stored shipment: %v %v", got, err)
	}
	if db.Level("wh_a", "prod_1").Reserved != 0 {
		t.Fatal("a draft reserved stock")
	}
}

func TestCreateShipmentTestFlagFollowsTheEnvironment(t *testing.T) {
	tests := []struct {
		env  domain.Environment
		want bool
	}{
		{domain.Sandbox, true},
		{domain.Production, false},
		{"", true}, // unset never makes real shipments
	}
	for _, tt := range tests {
		t.Run(string(tt.env), func(t *testing.T) {
			app, _ := apptest.ShipApp(apptest.ShipFixture(), tt.env)
			s, err := app.Shipping.CreateShipment.Handle(context.Background(), apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
			if err != nil {
				t.Fatal(err)
			}
			if s.Test() != tt.want {
				t.Fatalf("test %v, want %v", s.Test(), tt.want)
			}
		})
	}
}

func TestCreateShipmentRefusals(t *testing.T) {
	withWarehouse := func(c shippingapp.CreateShipment, wh string) shippingapp.CreateShipment {
		c.WarehouseID = wh
		return c
	}
	tests := []struct {
		name        string
		cmd         shippingapp.CreateShipment
		wantErr     error    // a sentinel, or nil when wantUnknown or wantField is set
		wantUnknown []string // apptest.IDs of a *shipping.UnknownItemsError
		wantField   string   // field of a *domain.ValidationError
	}{
		{name: "unknown warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "wh_nope"), wantErr: domain.ErrInvalidWarehouse},
		{name: "inactive warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "wh_off"), wantErr: domain.ErrInvalidWarehouse},
		{name: "other organization's warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "wh_b"), wantErr: domain.ErrInvalidWarehouse},
		{name: "warehouse that cannot be an ID", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), "' OR 1=1"), wantErr: domain.ErrInvalidWarehouse},
		{name: "warehouse checked before items", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_x", 1)), "wh_nope"), wantErr: domain.ErrInvalidWarehouse},
		{name: "no warehouse", cmd: withWarehouse(apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)), ""), wantField: "warehouseId"},
		{
			name:        "unknown, other organization's and wrong-kind items, de-duplicated in order",
			cmd:         apptest.ShipPickPack(apptest.ShipLine("prod_x", 1), apptest.ShipLine("prod_1", 1), apptest.ShipLine("prod_b", 1), apptest.ShipLine("prod_x", 2), apptest.ShipLine("ctn_1", 1), apptest.ShipLine("a b", 1)),
			wantUnknown: []string{"prod_x", "prod_b", "ctn_1", "a b"},
		},
		{name: "product in an SPD draft", cmd: apptest.ShipSPD(apptest.ShipLine("ctn_1", 1), apptest.ShipLine("prod_1", 1)), wantUnknown: []string{"prod_1"}},
		{name: "no lines", cmd: apptest.ShipSPD(), wantField: "cartons"},
		{name: "zero quantity", cmd: apptest.ShipPickPack(apptest.ShipLine("prod_1", 0)), wantField: "items[0].quantity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, app, _ := apptest.ShipSandbox()
			s, err := app.Shipping.CreateShipment.Handle(context.Background(), tt.cmd)
			if s != nil {
				t.Fatalf("created %s", s.ID())
			}
			switch {
			case tt.wantUnknown != nil:
				var ui *shipping.UnknownItemsError
				if !errors.As(err, &ui) || !reflect.DeepEqual(ui.IDs, tt.wantUnknown) {
					t.Fatalf("error %v, want unknown items %v", err, tt.wantUnknown)
				}
			case tt.wantField != "":
				domaintest.MatchField(t, err, tt.wantField)
			default:
				domaintest.MatchErr(t, err, tt.wantErr)
			}
			if len(db.State.Shipments) != 0 || db.Commits != 0 {
				t.Fatalf("a refused draft was stored (%d shipments, %d commits)", len(db.State.Shipments), db.Commits)
			}
		})
	}
}

func TestSubmitSPDReservesCartons(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 3), apptest.ShipLine("ctn_2", 2)))
	clock.At = apptest.ShipT0.Add(time.Minute)
	s, err := apptest.ShipSubmit(app, "org_ship_a", id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status() != shipping.ShipmentPending || s.SubmittedAt() == nil || !s.SubmittedAt().Equal(clock.At) || !s.UpdatedAt().Equal(clock.At) {
		t.Fatalf("status %s submitted %v updated %v", s.Status(), s.SubmittedAt(), s.UpdatedAt())
	}
	db.WantLevel(t, "wh_a", "ctn_1", apptest.StockLevel{OnHand: 5, Reserved: 3}, "5 on hand, 3 reserved")
	db.WantLevel(t, "wh_a", "ctn_2", apptest.StockLevel{OnHand: 2, Reserved: 2}, "2 on hand, 2 reserved")
	// The last two cartons of ctn_1 fit; a third does not.
	fits := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 2)))
	short := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	if _, err := apptest.ShipSubmit(app, "org_ship_a", fits); err != nil {
		t.Fatal(err)
	}
	var ise *shipping.InsufficientStockError
	if _, err := apptest.ShipSubmit(app, "org_ship_a", short); !errors.As(err, &ise) {
		t.Fatalf("third submission: %v, want insufficient stock", err)
	}
}

func TestSubmitShortSPDReservesNothing(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_2", 3), apptest.ShipLine("ctn_1", 5)))
	apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	_, err := apptest.ShipSubmit(app, "org_ship_a", id)
	var ise *shipping.InsufficientStockError
	if !errors.As(err, &ise) {
		t.Fatalf("error %v, want *InsufficientStockError", err)
	}
	want := []shipping.StockShortage{
		{ItemID: "ctn_2", SKU: "CTN-MUG-12", Requested: 3, Available: 2},
		{ItemID: "ctn_1", SKU: "CTN-TEE-24", Requested: 5, Available: 4},
	}
	got := append([]shipping.StockShortage(nil), ise.Items...)
	if len(got) == 2 && got[0].ItemID == "ctn_1" {
		got[0], got[1] = got[1], got[0]
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shortages %+v, want %+v", ise.Items, want)
	}
	db.WantReserved(t, "wh_a", "ctn_1", 1, "(the other draft's)")
	db.WantReserved(t, "wh_a", "ctn_2", 0, "")
	s, err := app.Shipping.GetShipment.Handle(context.Background(), shippingapp.GetShipment{OrganizationID: "org_ship_a", ShipmentID: id})
	if err != nil || s.Status() != shipping.ShipmentDraft || s.SubmittedAt() != nil {
		t.Fatalf("after a short submission: %v, %v; want an unchanged draft", s, err)
	}
}

func TestSubmitPickPackReservesWithoutACheck(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	apptest.ShipPending(t, app, apptest.ShipPickPack(apptest.ShipLine("prod_1", 7)))
	db.WantLevel(t, "wh_a", "prod_1", apptest.StockLevel{OnHand: 0, Reserved: 7}, "a backorder of 7")
}

func TestSubmitRefusals(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	pending := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	cancelled := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	if _, err := app.Shipping.CancelShipment.Handle(context.Background(), shippingapp.CancelShipment{OrganizationID: "org_ship_a", ShipmentID: cancelled}); err != nil {
		t.Fatal(err)
	}
	checkShipRefusals(t, db, func(org, id string) error { _, err := apptest.ShipSubmit(app, org, id); return err }, []shipRefusal{
		{"pending", "org_ship_a", pending, domain.ErrInvalidState},
		{"cancelled", "org_ship_a", cancelled, domain.ErrInvalidState},
		{"other organization", "org_ship_b", pending, domain.ErrNotFound},
		{"unknown", "org_ship_a", "shp_404", domain.ErrNotFound},
		{"not an ID", "org_ship_a", "../x", domain.ErrNotFound},
	})
	db.WantReserved(t, "wh_a", "ctn_1", 1, "")
}

// shipRefusal is a command on a shipment refused: who asks, for which
// shipment, and the error.
type shipRefusal struct {
	name    string
	org, id string
	wantErr error
}

// checkShipRefusals runs do for each case: it answers the case's error
// (errors.Is) and, when db is given, commits nothing.
func checkShipRefusals(t *testing.T, db *apptest.DB, do func(org, id string) error, cases []shipRefusal) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var commits int
			if db != nil {
				commits = db.Commits
			}
			domaintest.MatchErr(t, do(tt.org, tt.id), tt.wantErr)
			if db != nil && db.Commits != commits {
				t.Fatal("a refused command committed")
			}
		})
	}
}

func TestCancelPendingReleasesItsReservation(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1))) // kept
	id := apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 4), apptest.ShipLine("ctn_2", 2)))
	clock.At = apptest.ShipT0.Add(time.Hour)
	s, err := apptest.ShipCancel(app, "org_ship_a", id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status() != shipping.ShipmentCancelled || !s.UpdatedAt().Equal(clock.At) {
		t.Fatalf("status %s updated %v", s.Status(), s.UpdatedAt())
	}
	db.WantReserved(t, "wh_a", "ctn_1", 1, "(the other shipment's)")
	db.WantReserved(t, "wh_a", "ctn_2", 0, "")
	// What was released can be reserved again.
	again := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 4), apptest.ShipLine("ctn_2", 2)))
	if _, err := apptest.ShipSubmit(app, "org_ship_a", again); err != nil {
		t.Fatalf("resubmission after cancel: %v", err)
	}
}

func TestCancelDraftReleasesNothing(t *testing.T) {
	db, app, _ := apptest.ShipSandbox()
	apptest.ShipPending(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 2)))
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 2)))
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	db.WantReserved(t, "wh_a", "ctn_1", 2, "(cancelling a draft must not release)")
}

func TestCancelRefusals(t *testing.T) {
	_, app, _ := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	checkShipRefusals(t, nil, func(org, id string) error { _, err := apptest.ShipCancel(app, org, id); return err }, []shipRefusal{
		{"cancelled", "org_ship_a", id, domain.ErrInvalidState},
		{"other organization", "org_ship_b", id, domain.ErrNotFound},
		{"unknown", "org_ship_a", "shp_404", domain.ErrNotFound},
	})
}

// The events each change records in its unit of work (docs/events.md):
// one per committed change, the record as the change left it, none when
// the change is refused or rolled back.
func TestShipmentEventsOfCreateAndCancel(t *testing.T) {
	db, app, clock := apptest.ShipSandbox()
	id := apptest.ShipDraft(t, app, apptest.ShipSPD(apptest.ShipLine("ctn_1", 1)))
	clock.At = apptest.ShipT0.Add(time.Hour)
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); err != nil {
		t.Fatal(err)
	}
	// A refused change records nothing: cancelling again.
	if _, err := apptest.ShipCancel(app, "org_ship_a", id); !errors.Is(err, domain.ErrInvalidState) {
		t.Fatalf("second cancel: %v", err)
	}
	got := db.Recorded()
	apptest.WantEvents(t, got, "shipment.created "+id, "shipment.cancelled "+id)
	created, cancelled := got[0].Data.(*shipping.Shipment), got[1].Data.(*shipping.Shipment)
	if created.Status() != shipping.ShipmentDraft || cancelled.Status() != shipping.ShipmentCancelled {
		t.Fatalf("data: %s then %s", created.Status(), cancelled.Status())
	}
	if !got[1].Time.Equal(clock.At) || got[1].OrganizationID != "org_ship_a" || !cancelled.UpdatedAt().Equal(clock.At) {
		t.Fatalf("cancelled event %+v", got[1])
	}
}
