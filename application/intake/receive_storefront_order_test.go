package intake_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

func TestReceiveStorefrontOrderCreatesASubmittedShipment(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	big := int64(9007199254740993) // 2^53 + 1
	o := apptest.IntakeOrder(big,
		apptest.IntakeLine(1, "SOCK-1", 2),
		apptest.IntakeLine(2, " KEY-LTH-01 ", 1),
		intake.StorefrontLine{ID: 3, SKU: "", Quantity: 1, RequiresShipping: false}, // gift card
		apptest.IntakeLine(4, "SOCK-1", 3),
	)
	res, err := receive(t, app, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ShipmentID == "" || res.Duplicate || res.Skipped != "" {
		t.Fatalf("result %+v, want a new shipment", res)
	}
	ss := st.Shipments()
	if len(ss) != 1 || ss[0].ID() != res.ShipmentID {
		t.Fatalf("shipments %v, want exactly %s", ss, res.ShipmentID)
	}
	s := ss[0]
	wantLines := []shipping.ShipmentLine{{ItemID: "prod_sock", SKU: "SOCK-1", Quantity: 5}, {ItemID: "prod_key", SKU: "KEY-LTH-01", Quantity: 1}}
	if !reflect.DeepEqual(s.Lines(), wantLines) {
		t.Errorf("lines %+v, want %+v", s.Lines(), wantLines)
	}
	if s.Status() != shipping.ShipmentPending || s.Kind() != shipping.PickPack || !s.Test() {
		t.Errorf("status %s kind %s test %v, want pending pick_pack test", s.Status(), s.Kind(), s.Test())
	}
	if s.Warehouse() != (domain.WarehouseRef{ID: "wh_b", Name: "Bravo"}) {
		t.Errorf("warehouse %+v, want the default wh_b", s.Warehouse())
	}
	if s.Address() != *o.ShippingAddress || s.Notes() != o.Note {
		t.Errorf("address %+v notes %q, want them as sent", s.Address(), s.Notes())
	}
	if src := s.Source(); src == nil || *src != (shipping.ShipmentSource{Type: "storefront", OrderID: big, OrderNumber: 1042}) {
		t.Errorf("source %+v", src)
	}
	if got := st.Level("wh_b", "prod_sock").Reserved; got != 5 {
		t.Errorf("reserved %d socks at wh_b, want 5", got)
	}
	rec, _ := st.Receipt(apptest.IntakeOrg, big)
	if rec.Status() != intake.ReceiptSucceeded || rec.Attempts() != 1 || rec.ShipmentID() != res.ShipmentID ||
		rec.TraceID() != fmt.Sprintf("trace-%d", big) || rec.LastError() != "" {
		t.Errorf("receipt %+v", rec)
	}
}

func TestReceiveStorefrontOrderDuplicateAnswersTheSameShipment(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	o := apptest.IntakeOrder(77, apptest.IntakeLine(1, "TEE", 1))
	first, err := receive(t, app, o)
	if err != nil {
		t.Fatal(err)
	}
	// A redelivery, even one whose SKUs would now be refused, is answered
	// from the receipt: no second shipment, not counted as an attempt.
	o.Lines = []intake.StorefrontLine{apptest.IntakeLine(1, "GONE", 1)}
	second, err := receive(t, app, o)
	if err != nil {
		t.Fatal(err)
	}
	if second != (intakeapp.StorefrontOrderResult{ShipmentID: first.ShipmentID, Duplicate: true}) {
		t.Fatalf("second delivery %+v, want duplicate of %s", second, first.ShipmentID)
	}
	if n := len(st.Shipments()); n != 1 {
		t.Fatalf("%d shipments, want 1", n)
	}
	if rec, _ := st.Receipt(apptest.IntakeOrg, 77); rec.Attempts() != 1 || rec.TraceID() != "trace-77" {
		t.Errorf("receipt %+v, want 1 attempt and the first delivery's trace", rec)
	}
}

func TestReceiveStorefrontOrderRefusalsAreRecordedAndRetried(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	o := apptest.IntakeOrder(88, apptest.IntakeLine(1, "NOPE-2", 1), apptest.IntakeLine(2, "TEE", 1), apptest.IntakeLine(3, " NOPE-1", 1), apptest.IntakeLine(4, "NOPE-2 ", 4), apptest.IntakeLine(5, "tee", 1))
	_, err := receive(t, app, o)
	var us *domain.UnknownSKUsError
	if !errors.As(err, &us) || !reflect.DeepEqual(us.SKUs, []string{"NOPE-2", "NOPE-1", "tee"}) {
		t.Fatalf("error %v, want unknown skus NOPE-2, NOPE-1, tee (de-duplicated, payload order, case-sensitive)", err)
	}
	if k := application.KindOf(err); !k.Refused() || k.Code() != "unknown_skus" {
		t.Fatalf("kind %q, want a refusal unknown_skus", k)
	}
	rec, ok := st.Receipt(apptest.IntakeOrg, 88)
	if !ok || rec.Status() != intake.ReceiptFailed || rec.LastError() != "unknown_skus" || rec.Attempts() != 1 || len(st.Shipments()) != 0 {
		t.Fatalf("receipt %+v (found %v), %d shipments; want failed unknown_skus, none", rec, ok, len(st.Shipments()))
	}
	st.AddProduct(apptest.IntakeOrg, "prod_n1", "NOPE-1")
	st.AddProduct(apptest.IntakeOrg, "prod_n2", "NOPE-2")
	st.AddProduct(apptest.IntakeOrg, "prod_lt", "tee")
	res, err := receive(t, app, o)
	if err != nil || res.ShipmentID == "" || res.Duplicate {
		t.Fatalf("retry: %+v, %v; want a new shipment", res, err)
	}
	rec, _ = st.Receipt(apptest.IntakeOrg, 88)
	if rec.Status() != intake.ReceiptSucceeded || rec.Attempts() != 2 || rec.ShipmentID() != res.ShipmentID || rec.LastError() != "unknown_skus" {
		t.Fatalf("receipt after retry %+v; want succeeded after 2 attempts, the last error kept", rec)
	}
}

func TestReceiveStorefrontOrderRefusals(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(st *apptest.DB)
		order    intake.StorefrontOrder
		wantCode string
	}{
		{
			name: "missing shipping address", wantCode: "missing_shipping_address",
			order: func() intake.StorefrontOrder {
				o := apptest.IntakeOrder(10, apptest.IntakeLine(1, "TEE", 1))
				o.ShippingAddress = nil
				return o
			}(),
		},
		{
			name: "line to ship without sku", wantCode: "missing_sku",
			order: apptest.IntakeOrder(11, apptest.IntakeLine(1, "TEE", 1), apptest.IntakeLine(21, "  ", 1), apptest.IntakeLine(22, "", 2),
				intake.StorefrontLine{ID: 23, Quantity: 1}),
		},
		{
			name: "no active warehouse", wantCode: "no_warehouse",
			setup: func(st *apptest.DB) { st.State.Warehouses = st.State.Warehouses[2:] },
			order: apptest.IntakeOrder(12, apptest.IntakeLine(1, "TEE", 1)),
		},
		{
			name: "unknown skus before no warehouse", wantCode: "unknown_skus",
			setup: func(st *apptest.DB) { st.State.Warehouses = nil },
			order: apptest.IntakeOrder(13, apptest.IntakeLine(1, "X", 1)),
		},
		{
			name: "quantities of one sku beyond the bound", wantCode: "invalid_payload",
			order: apptest.IntakeOrder(15, apptest.IntakeLine(1, "TEE", 600_000_000), apptest.IntakeLine(2, "TEE ", 400_000_001)),
		},
		{
			name: "a quantity beyond the bound", wantCode: "invalid_payload",
			order: apptest.IntakeOrder(16, apptest.IntakeLine(1, "TEE", shipping.MaxLineQuantity+1)),
		},
		{
			name: "a quantity of 2^62 on a line not to ship", wantCode: "invalid_payload",
			order: func() intake.StorefrontOrder {
				o := apptest.IntakeOrder(17, apptest.IntakeLine(1, "TEE", 1), apptest.IntakeLine(2, "GIFT", 1<<62))
				o.Lines[1].RequiresShipping = false
				return o
			}(),
		},
		{
			name: "a zero quantity", wantCode: "invalid_payload",
			order: apptest.IntakeOrder(18, apptest.IntakeLine(1, "TEE", 0)),
		},
		{
			name: "note longer than a shipment holds", wantCode: "invalid_payload",
			order: func() intake.StorefrontOrder {
				o := apptest.IntakeOrder(14, apptest.IntakeLine(1, "TEE", 1))
				o.Note = string(make([]byte, 5001))
				return o
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := intakeFixture()
			if tt.setup != nil {
				tt.setup(st)
			}
			_, err := receive(t, apptest.IntakeApp(st, domain.Sandbox), tt.order)
			if k := application.KindOf(err); !k.Refused() || k.Code() != tt.wantCode {
				t.Fatalf("error %v (kind %q), want a refusal %s", err, k, tt.wantCode)
			}
			rec, _ := st.Receipt(apptest.IntakeOrg, tt.order.ID)
			if rec.Status() != intake.ReceiptFailed || rec.LastError() != tt.wantCode || rec.Attempts() != 1 {
				t.Errorf("receipt %+v, want failed %s after 1 attempt", rec, tt.wantCode)
			}
			if n := len(st.Shipments()); n != 0 {
				t.Errorf("%d shipments made by a refused order", n)
			}
		})
	}
}

func TestReceiveStorefrontOrderMissingSKUListsLineItems(t *testing.T) {
	st := intakeFixture()
	_, err := receive(t, apptest.IntakeApp(st, domain.Sandbox), apptest.IntakeOrder(11, apptest.IntakeLine(1, "TEE", 1), apptest.IntakeLine(21, "  ", 1),
		intake.StorefrontLine{ID: 22, Quantity: 1, RequiresShipping: false}, apptest.IntakeLine(23, "", 2)))
	var ms *domain.MissingSKUError
	if !errors.As(err, &ms) || !reflect.DeepEqual(ms.LineItemIDs, []int64{21, 23}) {
		t.Fatalf("error %v, want missing sku on line items 21 and 23", err)
	}
}

func TestReceiveStorefrontOrderSkips(t *testing.T) {
	tests := []struct {
		name  string
		order intake.StorefrontOrder
		want  intake.SkipReason
	}{
		{"cancelled", func() intake.StorefrontOrder {
			o := apptest.IntakeOrder(30, apptest.IntakeLine(1, "UNKNOWN", 1))
			o.Cancelled, o.ShippingAddress = true, nil
			return o
		}(), intake.SkipOrderCancelled},
		{"nothing to ship", func() intake.StorefrontOrder {
			o := apptest.IntakeOrder(31, intake.StorefrontLine{ID: 1, SKU: "", Quantity: 1})
			o.ShippingAddress = nil // digital orders have none
			return o
		}(), intake.SkipNoShippableItems},
		{"no line items", apptest.IntakeOrder(32), intake.SkipNoShippableItems},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := intakeFixture()
			app := apptest.IntakeApp(st, domain.Sandbox)
			res, err := receive(t, app, tt.order)
			if err != nil || res != (intakeapp.StorefrontOrderResult{Skipped: tt.want}) {
				t.Fatalf("%+v, %v; want skipped %s", res, err, tt.want)
			}
			rec, _ := st.Receipt(apptest.IntakeOrg, tt.order.ID)
			if rec.Status() != intake.ReceiptSucceeded || rec.Skipped() != tt.want || rec.ShipmentID() != "" || rec.Attempts() != 1 {
				t.Errorf("receipt %+v", rec)
			}
			again, err := receive(t, app, tt.order)
			if err != nil || again != (intakeapp.StorefrontOrderResult{Skipped: tt.want, Duplicate: true}) {
				t.Errorf("redelivery %+v, %v; want a duplicate skip", again, err)
			}
			if n := len(st.Shipments()); n != 0 {
				t.Errorf("%d shipments", n)
			}
		})
	}
}

func TestReceiveStorefrontOrderWarehouseChoice(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(st *apptest.DB)
		wantID  string
		wantErr error
	}{
		{"default set and active", nil, "wh_b", nil},
		{"no default: first active by name", func(st *apptest.DB) {
			o := st.State.Orgs[apptest.IntakeOrg]
			o.DefaultWarehouseID = ""
			st.State.Orgs[apptest.IntakeOrg] = o
		}, "wh_a", nil},
		{"default inactive: first active by name", func(st *apptest.DB) {
			st.State.Warehouses[1].Active = false
		}, "wh_a", nil},
		{"default of another organization", func(st *apptest.DB) {
			st.State.Warehouses[1].Orgs = []string{"org_other"}
		}, "wh_a", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := intakeFixture()
			if tt.setup != nil {
				tt.setup(st)
			}
			if _, err := receive(t, apptest.IntakeApp(st, domain.Sandbox), apptest.IntakeOrder(40, apptest.IntakeLine(1, "TEE", 1))); err != nil {
				t.Fatal(err)
			}
			if got := st.Shipments()[0].Warehouse().ID; got != tt.wantID {
				t.Errorf("warehouse %s, want %s", got, tt.wantID)
			}
		})
	}
}

func TestReceiveStorefrontOrderTestFlag(t *testing.T) {
	tests := []struct {
		env       domain.Environment
		orderTest bool
		want      bool
	}{
		{domain.Sandbox, false, true},
		{domain.Sandbox, true, true},
		{domain.Production, false, false},
		{domain.Production, true, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/test=%v", tt.env, tt.orderTest), func(t *testing.T) {
			st := intakeFixture()
			o := apptest.IntakeOrder(50, apptest.IntakeLine(1, "TEE", 1))
			o.Test = tt.orderTest
			if _, err := receive(t, apptest.IntakeApp(st, tt.env), o); err != nil {
				t.Fatal(err)
			}
			if got := st.Shipments()[0].Test(); got != tt.want {
				t.Errorf("test %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReceiveStorefrontOrderRefusedPayload(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	_, err := app.Intake.RefuseStorefrontOrder.Handle(context.Background(), intakeapp.RefuseStorefrontOrder{
		OrganizationID: apptest.IntakeOrg, TraceID: "t1", OrderID: 60, Body: []byte(`{"id": 60}`)})
	if err != nil {
		t.Fatalf("error %v, want the refusal recorded", err)
	}
	if rec, _ := st.Receipt(apptest.IntakeOrg, 60); rec.Status() != intake.ReceiptFailed || rec.LastError() != "invalid_payload" || rec.Attempts() != 1 {
		t.Errorf("receipt %+v, want failed invalid_payload", rec)
	}
	// Without an id there is nothing to record.
	_, err = app.Intake.RefuseStorefrontOrder.Handle(context.Background(), intakeapp.RefuseStorefrontOrder{OrganizationID: apptest.IntakeOrg})
	if code := application.KindOf(err).Code(); code != "invalid_payload" || len(st.State.Receipts) != 1 {
		t.Errorf("error %v, %d receipts; want invalid_payload and no new receipt", err, len(st.State.Receipts))
	}
}

func TestReceiveStorefrontOrderFaultRollsBackAndIsRecorded(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	st.FailCreate = errors.New("disk on fire")
	_, err := receive(t, app, apptest.IntakeOrder(70, apptest.IntakeLine(1, "TEE", 1)))
	if k := application.KindOf(err); !k.Fault() || k.Code() != "internal" {
		t.Fatalf("error %v, want an internal failure", err)
	}
	rec, _ := st.Receipt(apptest.IntakeOrg, 70)
	if rec.Status() != intake.ReceiptFailed || rec.LastError() != "internal" || rec.Attempts() != 1 || st.Level("wh_b", "prod_tee").Reserved != 0 {
		t.Fatalf("receipt %+v, reserved %v; want the attempt recorded failed and the reservation rolled back", rec, st.Level("wh_b", "prod_tee"))
	}
	st.FailCreate = nil
	if res, err := receive(t, app, apptest.IntakeOrder(70, apptest.IntakeLine(1, "TEE", 1))); err != nil || res.ShipmentID == "" {
		t.Fatalf("retry %+v, %v", res, err)
	}
	if rec, _ := st.Receipt(apptest.IntakeOrg, 70); rec.Attempts() != 2 || rec.Status() != intake.ReceiptSucceeded {
		t.Errorf("receipt %+v, want succeeded after 2 attempts", rec)
	}
}

func TestReceiveStorefrontOrderDatabaseDownIsUnavailable(t *testing.T) {
	st := intakeFixture()
	st.Down = true
	_, err := receive(t, apptest.IntakeApp(st, domain.Sandbox), apptest.IntakeOrder(71, apptest.IntakeLine(1, "TEE", 1)))
	if k := application.KindOf(err); !errors.Is(err, domain.ErrUnavailable) || k.Code() != "unavailable" || !k.Fault() {
		t.Fatalf("error %v, want unavailable", err)
	}
}

func TestReceiveStorefrontOrderMergesBeyondTheLineBound(t *testing.T) {
	st := intakeFixture()
	var lines []intake.StorefrontLine
	for i := range 3 * shipping.MaxShipmentLines {
		lines = append(lines, apptest.IntakeLine(int64(i), []string{"TEE", "SOCK-1", "KEY-LTH-01"}[i%3], 1))
	}
	if _, err := receive(t, apptest.IntakeApp(st, domain.Sandbox), apptest.IntakeOrder(16, lines...)); err != nil {
		t.Fatal(err)
	}
	got := st.Shipments()[0].Lines()
	if len(got) != 3 || got[0].Quantity != shipping.MaxShipmentLines {
		t.Fatalf("lines %+v, want 3 lines of %d", got, shipping.MaxShipmentLines)
	}
}

func TestReceiveStorefrontOrderSpanAttributes(t *testing.T) {
	_, app, rec := tracedIntake()
	h := app.Intake.ReceiveStorefrontOrder
	o := apptest.IntakeOrder(9007199254740993, apptest.IntakeLine(1, "TEE", 1))
	c := intakeapp.ReceiveStorefrontOrder{OrganizationID: apptest.IntakeOrg, Order: o}
	first, err := h.Handle(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handle(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	var spans []map[attribute.Key]attribute.Value
	for _, s := range rec.Ended() {
		if s.Name() != "ReceiveStorefrontOrder" {
			continue
		}
		m := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes() {
			m[kv.Key] = kv.Value
		}
		spans = append(spans, m)
	}
	if len(spans) != 2 {
		t.Fatalf("%d use case spans, want 2", len(spans))
	}
	for i, dup := range []bool{false, true} {
		attrs := spans[i]
		if attrs["organization.id"].AsString() != apptest.IntakeOrg || attrs["storefront.order.id"].AsInt64() != o.ID ||
			attrs["shipment.id"].AsString() != first.ShipmentID || attrs["storefront.duplicate"].AsBool() != dup {
			t.Errorf("delivery %d: span attributes %v", i, attrs)
		}
	}
}
