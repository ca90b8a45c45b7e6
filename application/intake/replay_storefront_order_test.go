package intake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"reflect"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/application/apptest"
	intakeapp "github.com/acme3pl/fulfillment/application/intake"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/domaintest"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// orderBody is the storefront's body of apptest.IntakeOrder(id) with one
// line of quantity 1 per SKU (apptest.IntakeLine, IDs from 1).
func orderBody(id int64, skus ...string) []byte {
	lines := make([]map[string]any, len(skus))
	for i, sku := range skus {
		lines[i] = map[string]any{"id": i + 1, "sku": sku, "quantity": 1, "requires_shipping": true}
	}
	b, err := json.Marshal(map[string]any{"id": id, "order_number": 1042, "note": "Bitte klingeln 🙏",
		"shipping_address": map[string]any{"name": "Zoë Müller", "company": "", "address1": "Straße des 17. Juni 135",
			"city": "Berlin", "zip": "10623", "country_code": "DE", "phone": "+49 30 1234567"},
		"line_items": lines, "email": "zoe@example.org"})
	if err != nil {
		panic(err)
	}
	return b
}

// deliverBody is a storefront delivery of body, as the HTTP adapter makes it.
func deliverBody(app *apptest.App, trace string, body []byte) (intakeapp.StorefrontOrderResult, error) {
	o, refused := intake.DecodeStorefrontOrder(body)
	if refused != nil {
		if o.ID > 0 {
			_, _ = app.Intake.RefuseStorefrontOrder.Handle(context.Background(), intakeapp.RefuseStorefrontOrder{
				OrganizationID: apptest.IntakeOrg, TraceID: trace, OrderID: o.ID, OrderNumber: o.OrderNumber, Body: body,
			})
		}
		return intakeapp.StorefrontOrderResult{}, refused
	}
	return deliverOrder(app, o, trace, body)
}

func replay(ctx context.Context, app *apptest.App, org string, id int64, trace string) (intakeapp.StorefrontOrderResult, error) {
	return app.Intake.ReplayStorefrontOrder.Handle(ctx, intakeapp.ReplayStorefrontOrder{
		OrganizationID: org, OrderID: id, TraceID: trace,
	})
}

func TestFailedDeliveriesKeepTheirBody(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	first, second := orderBody(11, "NEW-1"), orderBody(11, "NEW-1", "SOCK-1")
	if _, err := deliverBody(app, "t1", first); !errors.As(err, new(*domain.UnknownSKUsError)) {
		t.Fatalf("first delivery: %v", err)
	}
	if got := st.Payload(apptest.IntakeOrg, 11); !reflect.DeepEqual(got, first) {
		t.Fatalf("kept %q, want %q", got, first)
	}
	if _, err := deliverBody(app, "t2", second); err == nil {
		t.Fatal("second delivery succeeded")
	}
	if got := st.Payload(apptest.IntakeOrg, 11); !reflect.DeepEqual(got, second) {
		t.Fatalf("kept %q, want the later body %q", got, second)
	}
	// Refused before processing (unreadable, its ID read): kept as well.
	bad := []byte(`{"id": 12, "test": "yes", "line_items": []}`)
	if _, err := deliverBody(app, "t3", bad); !errors.As(err, new(*domain.ValidationError)) {
		t.Fatalf("bad delivery: %v", err)
	}
	if got := st.Payload(apptest.IntakeOrg, 12); !reflect.DeepEqual(got, bad) {
		t.Fatalf("kept %q, want %q", got, bad)
	}
	// A success deletes it.
	st.AddProduct(apptest.IntakeOrg, "prod_new", "NEW-1")
	if _, err := deliverBody(app, "t4", second); err != nil {
		t.Fatal(err)
	}
	if got := st.Payload(apptest.IntakeOrg, 11); got != nil {
		t.Fatalf("kept %q after the success", got)
	}
	if rec, _ := st.Receipt(apptest.IntakeOrg, 11); rec.PayloadKept() {
		t.Fatalf("receipt %+v keeps a body", rec)
	}
}

func TestReplayStorefrontOrder(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	ctx := context.Background()
	body := orderBody(21, "SOCK-1", "NEW-2")
	if _, err := deliverBody(app, "0af7651916cd43dd8448eb211c80319c", body); err == nil {
		t.Fatal("the order went through")
	}

	// Not fixed yet: refused again, counted, the body kept, the replay's trace on the receipt.
	_, err := replay(ctx, app, apptest.IntakeOrg, 21, "trace-replay-1")
	var unknown *domain.UnknownSKUsError
	if !errors.As(err, &unknown) || !reflect.DeepEqual(unknown.SKUs, []string{"NEW-2"}) {
		t.Fatalf("replay before the fix: %v", err)
	}
	rec, _ := st.Receipt(apptest.IntakeOrg, 21)
	if rec.Attempts() != 2 || rec.TraceID() != "trace-replay-1" || !rec.PayloadKept() || !reflect.DeepEqual(st.Payload(apptest.IntakeOrg, 21), body) {
		t.Fatalf("receipt after a refused replay: %+v", rec)
	}

	// Fixed: one shipment, the kept body's mapping.
	st.AddProduct(apptest.IntakeOrg, "prod_new2", "NEW-2")
	res, err := replay(ctx, app, apptest.IntakeOrg, 21, "trace-replay-2")
	if err != nil || res.ShipmentID == "" || res.Duplicate {
		t.Fatalf("replay after the fix: %+v %v", res, err)
	}
	ss := st.Shipments()
	if len(ss) != 1 || ss[0].Source().OrderID != 21 || len(ss[0].Lines()) != 2 {
		t.Fatalf("shipments %+v", ss)
	}
	rec, _ = st.Receipt(apptest.IntakeOrg, 21)
	if rec.Status() != intake.ReceiptSucceeded || rec.ShipmentID() != res.ShipmentID || rec.PayloadKept() ||
		st.Payload(apptest.IntakeOrg, 21) != nil || rec.TraceID() != "trace-replay-2" || rec.Attempts() != 3 {
		t.Fatalf("receipt after the replay: %+v", rec)
	}

	// Done: duplicate, nothing counted.
	again, err := replay(ctx, app, apptest.IntakeOrg, 21, "trace-replay-3")
	if err != nil || !again.Duplicate || again.ShipmentID != res.ShipmentID {
		t.Fatalf("replay of a done order: %+v %v", again, err)
	}
	if rec2, _ := st.Receipt(apptest.IntakeOrg, 21); !reflect.DeepEqual(rec2, rec) {
		t.Fatalf("a duplicate replay changed the receipt: %+v, was %+v", rec2, rec)
	}
	if len(st.Shipments()) != 1 {
		t.Fatal("a second shipment")
	}
}

func TestReplayStorefrontOrderRefusals(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	ctx := context.Background()
	if _, err := deliverBody(app, "t", orderBody(31, "NEW-3")); err == nil {
		t.Fatal("the order went through")
	}
	tests := []struct {
		name    string
		org     string
		id      int64
		prepare func()
		wantErr error
	}{
		{name: "no receipt", org: apptest.IntakeOrg, id: 999, wantErr: domain.ErrNotFound},
		{name: "another organization's order", org: "org_other", id: 31, wantErr: domain.ErrNotFound},
		{name: "the body is gone", org: apptest.IntakeOrg, id: 31, wantErr: intake.ErrPayloadNotKept, prepare: func() {
			n, err := app.Intake.PurgeFailedOrders.Handle(ctx, intakeapp.PurgeFailedOrders{})
			if err != nil || n != 0 {
				t.Fatalf("purge within retention: %d %v", n, err)
			}
			st.Lock()
			p := st.State.Receipts[apptest.IntakeKey{Org: apptest.IntakeOrg, Order: 31}]
			p.Payload, p.PayloadBytes = nil, nil
			st.State.Receipts[apptest.IntakeKey{Org: apptest.IntakeOrg, Order: 31}] = p
			st.Unlock()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.prepare != nil {
				tt.prepare()
			}
			before, _ := st.Receipt(apptest.IntakeOrg, 31)
			_, err := replay(ctx, app, tt.org, tt.id, "tr")
			domaintest.MatchErr(t, err, tt.wantErr)
			if after, _ := st.Receipt(apptest.IntakeOrg, 31); !reflect.DeepEqual(after, before) {
				t.Fatalf("the receipt changed: %+v, was %+v", after, before)
			}
		})
	}
	if got := application.KindOf(fmt.Errorf("replay: %w", intake.ErrPayloadNotKept)); got != domain.KindPayloadNotKept ||
		got.Code() != "payload_not_kept" || got.Fault() || got.Refused() {
		t.Fatalf("payload_not_kept is of kind %q", got)
	}
}

// A kept body the decoder now reads as another order touches no order.
func TestReplayStorefrontOrderOfAnotherID(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	if _, err := deliverBody(app, "t", orderBody(41, "NEW-4")); err == nil {
		t.Fatal("the order went through")
	}
	st.Lock()
	p := st.State.Receipts[apptest.IntakeKey{Org: apptest.IntakeOrg, Order: 41}]
	p.Payload = orderBody(42, "SOCK-1")
	st.State.Receipts[apptest.IntakeKey{Org: apptest.IntakeOrg, Order: 41}] = p
	st.Unlock()
	before, _ := st.Receipt(apptest.IntakeOrg, 41)
	if _, err := replay(context.Background(), app, apptest.IntakeOrg, 41, "tr"); !errors.As(err, new(*domain.ValidationError)) {
		t.Fatalf("error %v, want invalid", err)
	}
	if after, _ := st.Receipt(apptest.IntakeOrg, 41); !reflect.DeepEqual(after, before) {
		t.Fatalf("the receipt changed")
	}
	if _, ok := st.Receipt(apptest.IntakeOrg, 42); ok || len(st.Shipments()) != 0 {
		t.Fatal("another order was touched")
	}
}

// The replay's span links to the trace of the delivery that failed, and
// the intake's own span is under it.
func TestReplayStorefrontOrderLinksTheFailedTrace(t *testing.T) {
	st, app, rec := tracedIntake()
	failed := "0af7651916cd43dd8448eb211c80319c"
	if _, err := deliverBody(app, failed, orderBody(51, "NEW-5")); err == nil {
		t.Fatal("the order went through")
	}
	st.AddProduct(apptest.IntakeOrg, "prod_new5", "NEW-5")
	if _, err := replay(context.Background(), app, apptest.IntakeOrg, 51, "4bf92f3577b34da6a3ce929d0e0e4736"); err != nil {
		t.Fatal(err)
	}
	var replaySpan, intakeSpan sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch s.Name() {
		case "ReplayStorefrontOrder":
			replaySpan = s
		case "ReceiveStorefrontOrder":
			intakeSpan = s
		}
	}
	if replaySpan == nil || intakeSpan == nil || intakeSpan.Parent().SpanID() != replaySpan.SpanContext().SpanID() {
		t.Fatal("want the intake's span under the replay's")
	}
	want, _ := trace.TraceIDFromHex(failed)
	links := replaySpan.Links()
	if len(links) != 1 || links[0].SpanContext.TraceID() != want {
		t.Fatalf("links %+v, want one to trace %s", links, failed)
	}
	found := false
	for _, a := range replaySpan.Attributes() {
		found = found || (a.Key == intakeapp.ReplayedTraceKey && a.Value.AsString() == failed)
	}
	if !found {
		t.Errorf("replay span attributes %v lack %s", replaySpan.Attributes(), intakeapp.ReplayedTraceKey)
	}
}

func TestParseReceiptFilter(t *testing.T) {
	tests := []struct {
		status, code string
		want         intakeports.ReceiptFilter
		wantParam    string // the parameter a refusal names; "" when accepted
	}{
		{"", "", intakeports.ReceiptFilter{}, ""},
		{"failed", "unknown_skus", intakeports.ReceiptFilter{Status: intake.ReceiptFailed, Error: "unknown_skus"}, ""},
		{"succeeded", "", intakeports.ReceiptFilter{Status: intake.ReceiptSucceeded}, ""},
		{"processing", "", intakeports.ReceiptFilter{}, "status"},
		{"Failed", "", intakeports.ReceiptFilter{}, "status"},
		{"", "invalid_api_key", intakeports.ReceiptFilter{}, "error"},
		{"", "UNKNOWN_SKUS", intakeports.ReceiptFilter{}, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.status+"/"+tt.code, func(t *testing.T) {
			got, err := intakeapp.ParseReceiptFilter(tt.status, tt.code)
			domaintest.MatchField(t, err, tt.wantParam)
			if tt.wantParam == "" && got != tt.want {
				t.Fatalf("filter %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestListOrderReceipts(t *testing.T) {
	st := intakeFixture()
	app := apptest.IntakeApp(st, domain.Sandbox)
	for i := range 4 {
		if _, err := deliverBody(app, "t", orderBody(int64(60+i), "NEW-6")); err == nil {
			t.Fatal("the order went through")
		}
	}
	res, err := app.Intake.ListOrderReceipts.Handle(context.Background(), intakeapp.ListOrderReceipts{
		OrganizationID: apptest.IntakeOrg, Filter: intakeports.ReceiptFilter{Status: intake.ReceiptFailed}, Page: ports.Page{Skip: 1, Take: 2},
	})
	if err != nil || len(res.Items) != 2 || !res.More || res.Items[0].OrderID() != 62 || !res.Items[0].PayloadKept() {
		t.Fatalf("page %+v %v", res, err)
	}
	ids, err := app.Intake.ListReplayableOrders.Handle(context.Background(), intakeapp.ListReplayableOrders{
		OrganizationID: apptest.IntakeOrg, After: 60, Limit: 2,
	})
	if err != nil || !reflect.DeepEqual(ids, []int64{61, 62}) {
		t.Fatalf("replayable %v %v", ids, err)
	}
}

// The purge deletes what is past retention, batch after batch; the counts
// are by code, every code present, the oldest's age from its first delivery.
func TestPurgeAndCountFailedOrders(t *testing.T) {
	st := intakeFixture()
	now := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC) // the fake application's clock
	st.Lock()
	for i := range 2500 {
		at := now.Add(-25 * time.Hour) // past the fake application's 24 h retention
		code := "unknown_skus"
		if i >= 2400 {
			at, code = now.Add(-time.Hour), "no_warehouse"
		}
		if i == 2499 {
			code = "conflict"
		}
		n := 2
		st.State.Receipts[apptest.IntakeKey{Org: apptest.IntakeOrg, Order: int64(1000 + i)}] = apptest.IntakeStored{OrderReceiptParams: intake.OrderReceiptParams{
			OrganizationID: apptest.IntakeOrg, OrderID: int64(1000 + i), Status: intake.ReceiptFailed, Attempts: 1, LastError: code,
			FirstReceived: at.Add(-time.Duration(i) * time.Second), LastReceived: at, PayloadBytes: &n,
		}, Payload: []byte("{}")}
	}
	st.Unlock()
	app := apptest.IntakeApp(st, domain.Sandbox)
	ctx := context.Background()

	counts, err := app.Intake.CountFailedOrders.Handle(ctx, intakeapp.CountFailedOrders{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"invalid_payload": 0, "unknown_skus": 2400, "missing_sku": 0, "missing_shipping_address": 0,
		"no_warehouse": 99, "unavailable": 0, "internal": 0, "other": 1}
	if !reflect.DeepEqual(counts.ByCode, want) || counts.OldestAge != 25*time.Hour+2399*time.Second {
		t.Fatalf("counts %v, oldest %s; want %v, 25h39m59s", counts.ByCode, counts.OldestAge, want)
	}

	n, err := app.Intake.PurgeFailedOrders.Handle(ctx, intakeapp.PurgeFailedOrders{})
	if err != nil || n != 2400 {
		t.Fatalf("purged %d %v, want 2400 in three batches", n, err)
	}
	counts, err = app.Intake.CountFailedOrders.Handle(ctx, intakeapp.CountFailedOrders{})
	if err != nil || counts.ByCode["unknown_skus"] != 0 || counts.ByCode["no_warehouse"] != 99 {
		t.Fatalf("counts after the purge %v %v", counts.ByCode, err)
	}
	if rec, ok := st.Receipt(apptest.IntakeOrg, 1000); !ok || rec.PayloadKept() || rec.Status() != intake.ReceiptFailed {
		t.Fatalf("a purged order's receipt: %v %+v", ok, rec)
	}
	st.Down = true
	if _, err := app.Intake.PurgeFailedOrders.Handle(ctx, intakeapp.PurgeFailedOrders{}); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("purge with the database down: %v", err)
	}
}
