package main

// End-to-end tests of the platform's events (docs/events.md): the real
// binary with EVENTS_NATS_URL on a private nats-server (natstest), a
// consumer that reads the stream and checks every event against the API's
// view of its record, and the broker stopped and started under load.
//
// The tests of this file do not run in parallel: the outbox is the
// package database's, and every server with events on relays it.

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/acme3pl/fulfillment/adapters/broker/natstest"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// streamed is a message of the events stream.
type streamed struct {
	Subject string // the broker's
	MsgID   string // Nats-Msg-Id
	// Event is decoded by the test's own type, not broker.CloudEvent, so
	// that a renamed member on the producer's side fails it.
	Event struct {
		SpecVersion     string          `json:"specversion"`
		ID              string          `json:"id"`
		Source          string          `json:"source"`
		Type            string          `json:"type"`
		Subject         string          `json:"subject"`
		Time            string          `json:"time"`
		DataContentType string          `json:"datacontenttype"`
		OrganizationID  string          `json:"organizationid"`
		Data            json.RawMessage `json:"data"`
	}
}

// readStream reads the stream FULFILLMENT of the broker at url until it
// holds at least want messages (within 30 s), and returns them all.
func readStream(t *testing.T, url string, want int) []streamed {
	t.Helper()
	js := natstest.JetStream(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last uint64
	for {
		if s, err := js.Stream(ctx, "FULFILLMENT"); err == nil {
			if info, err := s.Info(ctx); err == nil && info.State.Msgs >= uint64(want) {
				last = info.State.LastSeq
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("the stream does not hold %d events within 30 s", want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s, err := js.Stream(ctx, "FULFILLMENT")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]streamed, 0, last)
	for seq := uint64(1); seq <= last; seq++ {
		msg, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		m := streamed{Subject: msg.Subject, MsgID: msg.Header.Get(jetstream.MsgIDHeader)}
		if err := json.Unmarshal(msg.Data, &m.Event); err != nil {
			t.Fatalf("message %d is not a CloudEvent: %v: %s", seq, err, msg.Data)
		}
		out = append(out, m)
	}
	return out
}

// checkEnvelope checks the CloudEvents attributes and the broker's side of
// every event; ids are unique.
func checkEnvelope(t *testing.T, events []streamed) {
	t.Helper()
	ids := map[string]bool{}
	for _, m := range events {
		e := m.Event
		if e.SpecVersion != "1.0" || e.ID == "" || e.Source != "fulfillment/sandbox" || e.Subject == "" ||
			e.DataContentType != "application/json" || !intakeTimestamp.MatchString(e.Time) || len(e.Data) == 0 {
			t.Errorf("CloudEvent attributes: %+v", e)
		}
		if m.Subject != "fulfillment.sandbox."+e.Type || m.MsgID != e.ID {
			t.Errorf("event %s on %s with Nats-Msg-Id %q", e.ID, m.Subject, m.MsgID)
		}
		if ids[e.ID] {
			t.Errorf("event %s twice", e.ID)
		}
		ids[e.ID] = true
	}
}

// sameJSON compares an event's data with an API answer, less the members
// named in drop.
func sameJSON(t *testing.T, what string, data json.RawMessage, api []byte, drop ...string) {
	t.Helper()
	var got, want map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(api, &want); err != nil {
		t.Fatal(err)
	}
	for _, k := range drop {
		delete(got, k)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: event data\n%v\nAPI\n%v", what, got, want)
	}
}

func eventsEnv(url string) []string {
	return e2e.BaseEnv(e2e.TestDSN, "EVENTS_NATS_URL="+url, "DB_MAX_CONNS=8")
}

func TestEventsMatchTheAPI(t *testing.T) {
	intakeServer(t) // the intake's fixture, seeded once
	broker := natstest.Start(t)
	srv := e2e.StartServer(t, eventsEnv(broker.URL()))
	get := func(path string) []byte {
		r := e2e.Do(t, "GET", srv.URL+path, nil, "Authorization", "Bearer "+intakeTokenA)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
		return r.Body
	}

	// shipment.created by the intake, then shipment.cancelled.
	orderID := strconv.FormatInt(7100000000000+time.Now().UnixNano()%1000000000, 10)
	shipped := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), orderID, nil)))
	createdView := get("/v0/shipments/" + shipped)
	if r := e2e.Do(t, "POST", srv.URL+"/v0/shipments/"+shipped+"/cancel", nil, "Authorization", "Bearer "+intakeTokenA); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	cancelledView := get("/v0/shipments/" + shipped)
	// shipment.created by the API: a draft.
	r := e2e.Do(t, "POST", srv.URL+"/v0/shipments/pick-pack", map[string]any{
		"warehouseId": "wh_e2e_in_a", "shippingName": "Events", "items": []any{map[string]any{"productId": "prod_in_a_1", "quantity": 2}},
	}, "Authorization", "Bearer "+intakeTokenA)
	if r.Status != http.StatusCreated {
		t.Fatalf("draft: %d %s", r.Status, r.Body)
	}
	var draft struct{ ID string }
	r.JSON(t, &draft)
	draftView := get("/v0/shipments/" + draft.ID)
	// storefront_order.failed: an unknown SKU.
	failedID := strconv.FormatInt(7200000000000+time.Now().UnixNano()%1000000000, 10)
	bad := e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), failedID, map[string]any{
		"line_items": []any{map[string]any{"id": 1, "sku": "NO-SUCH-SKU", "quantity": 1, "requires_shipping": true}},
	})
	wantIntakeError(t, e2e.Deliver(t, srv, intakeKeyA, bad), 422, "unknown_skus")
	failedView := get("/v0/storefront/orders/" + failedID)
	// inventory.received: a truck at Alpha, reported by the warehouse.
	wh := e2e.MintWarehouseToken(t, "wh_e2e_in_a", "warehouse")
	received := e2e.Do(t, "POST", srv.URL+"/v0/warehouse/receipts", map[string]any{"organizationId": "org_e2e_in_a",
		"reference": "ASN-EVENTS-" + orderID, "items": []any{map[string]any{"productId": "prod_in_a_0", "quantity": 5}}},
		"Authorization", "Bearer "+wh)
	if received.Status != http.StatusCreated {
		t.Fatalf("warehouse receipt: %d %s", received.Status, received.Body)
	}
	var receipt struct{ ID string }
	received.JSON(t, &receipt)
	// shipment.shipped: an order's shipment at Bravo (the default), its stock received there first,
	// shipped by Bravo's warehouse.
	bravo := e2e.MintWarehouseToken(t, "wh_e2e_in_b", "warehouse")
	stocked := e2e.Do(t, "POST", srv.URL+"/v0/warehouse/receipts", map[string]any{"organizationId": "org_e2e_in_a",
		"reference": "ASN-EVENTS-B-" + orderID, "items": []any{map[string]any{"productId": "prod_in_a_0", "quantity": 2},
			map[string]any{"productId": "prod_in_a_1", "quantity": 1}}}, "Authorization", "Bearer "+bravo)
	if stocked.Status != http.StatusCreated {
		t.Fatalf("warehouse receipt at Bravo: %d %s", stocked.Status, stocked.Body)
	}
	var stockedReceipt struct{ ID string }
	stocked.JSON(t, &stockedReceipt)
	shipOrderID := strconv.FormatInt(7400000000000+time.Now().UnixNano()%1000000000, 10)
	toShip := e2e.WantShipment(t, e2e.Deliver(t, srv, intakeKeyA, e2e.WithID(t, e2e.IntakeSample(t, "orders-create.json"), shipOrderID, nil)))
	toShipView := get("/v0/shipments/" + toShip)
	if r := e2e.Do(t, "POST", srv.URL+"/v0/warehouse/shipments/"+toShip+"/ship", map[string]any{"carrier": "UPS", "trackingNumber": "1Z999"},
		"Authorization", "Bearer "+bravo); r.Status != http.StatusOK {
		t.Fatalf("ship: %d %s", r.Status, r.Body)
	}
	shippedView := get("/v0/shipments/" + toShip)

	stream := readStream(t, broker.URL(), 8)
	checkEnvelope(t, stream)
	want := []string{"shipment.created " + shipped, "shipment.cancelled " + shipped, "shipment.created " + draft.ID,
		"storefront_order.failed " + failedID, "inventory.received " + receipt.ID, "inventory.received " + stockedReceipt.ID,
		"shipment.created " + toShip, "shipment.shipped " + toShip}
	// Order is kept per subject; events of different subjects may come in
	// another order than their changes (one relay batch takes the first
	// event of every subject at once), so the stream is compared per
	// subject, and events lists them in want's order.
	var got []string
	pos := map[string]int{}
	for i, m := range stream {
		k := m.Event.Type + " " + m.Event.Subject
		got = append(got, k)
		pos[k] = i
	}
	events := make([]streamed, 0, len(want))
	for _, k := range want {
		if p, ok := pos[k]; ok && len(stream) == len(want) {
			events = append(events, stream[p])
		}
	}
	if len(events) != len(want) {
		t.Fatalf("events %v, want %v (in this order per subject)", got, want)
	}
	for i := range want {
		for j := i + 1; j < len(want); j++ {
			if strings.Fields(want[i])[1] == strings.Fields(want[j])[1] && pos[want[i]] > pos[want[j]] {
				t.Fatalf("events %v: %q came after %q", got, want[i], want[j])
			}
		}
	}
	for i, api := range [][]byte{createdView, cancelledView, draftView} {
		var data struct {
			OrganizationID string `json:"organizationId"`
		}
		if err := json.Unmarshal(events[i].Event.Data, &data); err != nil || data.OrganizationID != "org_e2e_in_a" ||
			events[i].Event.OrganizationID != "org_e2e_in_a" {
			t.Errorf("%s: organizationId %q / %q", want[i], data.OrganizationID, events[i].Event.OrganizationID)
		}
		sameJSON(t, want[i], events[i].Event.Data, api, "organizationId")
	}
	sameJSON(t, want[3], events[3].Event.Data, failedView)
	sameJSON(t, want[4], events[4].Event.Data, received.Body)
	sameJSON(t, want[5], events[5].Event.Data, stocked.Body)
	sameJSON(t, want[6], events[6].Event.Data, toShipView, "organizationId")
	sameJSON(t, want[7], events[7].Event.Data, shippedView, "organizationId")

	// The operator's view: `fulfillment events tail --all` prints the same events, one a line.
	tail := e2e.MustCLI(t, eventsEnv(broker.URL()), "events", "tail", "--all", "--count", "5")
	lines := strings.Split(strings.TrimSpace(tail), "\n")
	if len(lines) != 5 {
		t.Fatalf("events tail printed %d lines: %s", len(lines), tail)
	}
	for i, line := range lines {
		var e struct{ ID string }
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.ID != stream[i].Event.ID {
			t.Errorf("events tail line %d: %v, %s; want the event %s", i, err, line, stream[i].Event.ID)
		}
	}
	if r := e2e.RunCLI(t, e2e.BaseEnv(e2e.TestDSN), "events", "tail"); r.Code != 1 || !strings.Contains(r.Stderr, "EVENTS_NATS_URL") {
		t.Errorf("events tail without EVENTS_NATS_URL: exit %d, %q", r.Code, r.Stderr)
	}

	// The outbox is empty once published, and the metrics say so.
	waitOutboxEmpty(t)
	metrics := e2e.Do(t, "GET", srv.URL+"/metrics", nil)
	for _, s := range []string{`fulfillment_events_published_total{type="shipment.created"} 3`, `fulfillment_events_published_total{type="shipment.shipped"} 1`,
		`fulfillment_events_published_total{type="shipment.cancelled"} 1`, "fulfillment_events_outbox_pending ",
		"fulfillment_events_outbox_oldest_age_seconds ", "\nfulfillment_events_stream_misconfigured 0\n"} {
		if !strings.Contains(string(metrics.Body), s) {
			t.Errorf("/metrics lacks %q", s)
		}
	}
}

// waitOutboxEmpty waits up to 30 s for the relays to empty the outbox.
func waitOutboxEmpty(t *testing.T) {
	t.Helper()
	waitOutboxEmptyWithin(t, 30*time.Second)
}

// The broker stopped for seconds while orders keep coming to two
// replicas: every delivery is answered as before, /readyz stays 200, the
// outbox grows; once the broker is back every event arrives, in order per
// subject, none twice.
func TestEventsSurviveTheBrokerAway(t *testing.T) {
	intakeServer(t)
	broker := natstest.Start(t)
	replicas := []*e2e.Server{e2e.StartServer(t, eventsEnv(broker.URL())), e2e.StartServer(t, eventsEnv(broker.URL()))}

	base := 7300000000000 + time.Now().UnixNano()%1000000000*1000
	flows := []*orderFlow{startOrderFlow(t, replicas[0], base, 2), startOrderFlow(t, replicas[1], base+500000000, 2)}
	readyAll := func() {
		for _, srv := range replicas {
			if r := e2e.Do(t, "GET", srv.URL+"/readyz", nil); r.Status != 200 {
				t.Errorf("/readyz %d with the broker away", r.Status)
			}
		}
	}
	time.Sleep(time.Second)
	broker.Stop()
	for range 8 {
		time.Sleep(500 * time.Millisecond)
		readyAll()
	}
	var waiting int
	db := pgtest.Open(t, e2e.TestDSN)
	if err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM event_outbox").Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting == 0 {
		t.Error("the outbox is empty with the broker away")
	}
	broker.Start()
	time.Sleep(time.Second)
	for _, f := range flows {
		f.end()
	}
	if t.Failed() {
		return
	}
	want, n := flowsWant(time.Time{}, flows...)
	t.Logf("%d shipments, %d events, %d waiting in the outbox during the outage", len(want), n, waiting)
	waitOutboxEmpty(t)
	events := readStream(t, broker.URL(), n)
	checkSubjects(t, events, want, false)
	if len(events) != n {
		t.Errorf("%d events in the stream, want %d", len(events), n)
	}
}
