package broker_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/adapters/broker"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// The body is byte for byte the JSON of broker.CloudEvent around the
// data's JSON — what json.Marshal of the whole event makes — for data that
// needs escaping too.
func TestEncodeEventIsTheCloudEventsJSON(t *testing.T) {
	data := map[string]any{"id": "shp_1", "name": "Ann <&> \"Bo\"\u2028", "lines": []any{1, 2.5, nil}, "nested": map[string]any{"a": true}}
	enc := broker.CloudEvents{Environment: "sandbox", Data: func(e eventsports.Event) (any, error) { return e.Data, nil }}
	at := time.Date(2026, 12, 7, 16, 0, 0, 123e6, time.UTC)
	e := eventsports.Event{Type: eventsports.EventShipmentCreated, Subject: "shp_1", OrganizationID: "org_<a>", Time: at, Data: data}
	subject, body, err := enc.EncodeEvent("evt_1", e)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(broker.CloudEvent{SpecVersion: "1.0", ID: "evt_1", Source: "fulfillment/sandbox",
		Type: "shipment.created", Subject: "shp_1", Time: "2026-12-07T16:00:00.123Z", DataContentType: "application/json",
		OrganizationID: "org_<a>", Data: raw})
	if err != nil {
		t.Fatal(err)
	}
	if subject != "fulfillment.sandbox.shipment.created" || string(body) != string(want) {
		t.Fatalf("subject %s, body\n%s\nwant\n%s", subject, body, want)
	}
}
