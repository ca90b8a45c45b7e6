package broker

import (
	"encoding/json"
	"fmt"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// CloudEvent is an event in CloudEvents 1.0 structured JSON mode, as
// published. OrganizationID is the extension attribute organizationid:
// every event names its organization, whatever its data holds.
type CloudEvent struct {
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

// CloudEvents implements eventsports.EventEncoder: the source is
// fulfillment/<environment>, the broker subject
// fulfillment.<environment>.<type>, and Data gives the value whose JSON is
// the event's data (EventData, the API's view of the record).
type CloudEvents struct {
	Environment string
	Data        func(eventsports.Event) (any, error)
}

var _ eventsports.EventEncoder = CloudEvents{}

// Subject is the broker subject of events of type t.
func (c CloudEvents) Subject(t eventsports.EventType) string {
	return "fulfillment." + c.Environment + "." + string(t)
}

// envelope is a CloudEvent less its data, in the same order: EncodeEvent
// writes the data after it as it is.
type envelope struct {
	SpecVersion     string `json:"specversion"`
	ID              string `json:"id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Subject         string `json:"subject"`
	Time            string `json:"time"`
	DataContentType string `json:"datacontenttype"`
	OrganizationID  string `json:"organizationid"`
}

// EncodeEvent implements eventsports.EventEncoder. The body is the JSON of a
// CloudEvent; the data, already compact JSON from json.Marshal, is
// appended to the envelope's as it is, rather than marshalled again as a
// json.RawMessage, which would scan and compact it a second time (a
// shipment's view is about a kilobyte, encoded in the change's
// transaction: the intake's hot path).
func (c CloudEvents) EncodeEvent(id string, e eventsports.Event) (string, []byte, error) {
	v, err := c.Data(e)
	if err != nil {
		return "", nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", nil, fmt.Errorf("encode the data of %s: %w", e.Type, err)
	}
	head, err := json.Marshal(envelope{
		SpecVersion: "1.0", ID: id, Source: "fulfillment/" + c.Environment, Type: string(e.Type), Subject: e.Subject,
		Time: apiview.FormatTime(e.Time), DataContentType: "application/json", OrganizationID: e.OrganizationID,
	})
	if err != nil {
		return "", nil, fmt.Errorf("encode %s: %w", e.Type, err)
	}
	const member = `,"data":`
	body := make([]byte, 0, len(head)+len(member)+len(data))
	body = append(body, head[:len(head)-1]...) // less its closing brace
	body = append(body, member...)
	body = append(body, data...)
	body = append(body, '}')
	return c.Subject(e.Type), body, nil
}
