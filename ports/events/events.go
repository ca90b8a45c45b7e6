package events

import (
	"context"
	"time"
)

// EventType is the type of a platform event (docs/events.md), the
// CloudEvents type and the last part of its broker subject.
type EventType string

// The platform's event types.
const (
	EventShipmentCreated       EventType = "shipment.created"
	EventShipmentShipped       EventType = "shipment.shipped"
	EventShipmentCancelled     EventType = "shipment.cancelled"
	EventStorefrontOrderFailed EventType = "storefront_order.failed"
	EventInventoryReceived     EventType = "inventory.received"
	EventInvoiceFinalized      EventType = "invoice.finalized"
	EventInvoiceStatusChanged  EventType = "invoice.status_changed"
	EventOperatorAction        EventType = "operator.action"
)

// EventTypes are every type, the values of the metrics' type label.
var EventTypes = []EventType{
	EventShipmentCreated, EventShipmentShipped, EventShipmentCancelled, EventStorefrontOrderFailed,
	EventInventoryReceived, EventInvoiceFinalized, EventInvoiceStatusChanged, EventOperatorAction,
}

// Event is a change to report to the platform: its type; its subject, the
// ID of the record it is about (a shipment's, an invoice's, a storefront
// order's, a warehouse receipt's), which orders delivery; the organization;
// when the change happened; and the record as the change left it, which
// the event's data shows as the API shows it: *shipping.Shipment,
// *intake.OrderReceipt, *invoicing.Invoice, or the warehouse receipt.
type Event struct {
	Type           EventType
	Subject        string
	OrganizationID string
	Time           time.Time
	Data           any
}

// EventRecorder records events in the outbox of the unit of work it is
// bound to (r.Events of a context's Repositories): they are published once, and only if,
// the transaction commits. The change must lock the record it reports
// (ShipmentRepository.Update, the receipt's claim) before Record is called
// or in the same transaction before it commits, so that the events of one
// subject are in commit order. When events are off (no broker configured)
// Record does nothing.
type EventRecorder interface {
	Record(ctx context.Context, e Event) error
}

// EventEncoder writes an event as the message the broker receives: its
// subject on the broker and its body, with id as the event's ID.
type EventEncoder interface {
	EncodeEvent(id string, e Event) (brokerSubject string, body []byte, err error)
}

// OutboxEvent is an event waiting in the outbox, as the relay reads it.
type OutboxEvent struct {
	Seq           int64 // position in the outbox: commit order per subject
	ID            string
	Type          EventType
	Subject       string
	BrokerSubject string
	Body          []byte
	TraceParent   string    // W3C traceparent of the change; "" when it had none
	RecordedAt    time.Time // when the change wrote it
}

// EventPublish publishes a batch of events, the events of each subject in
// their order, and returns the Seq of those the broker acknowledged; an
// event of a subject is only published once the one before it is
// acknowledged. Once ctx is done it starts no more events, and reports
// those the broker took by then.
type EventPublish func(ctx context.Context, events []OutboxEvent) (acked []int64, err error)

// EventOutbox is the relay's side of the outbox.
type EventOutbox interface {
	// Relay takes the waiting events of up to heads subjects — the oldest
	// of every subject no other relay holds, and up to perSubject of the
	// same subject from it — hands them to publish in order, and deletes,
	// in one transaction, the leading events of each subject that publish
	// reports acknowledged, even when it fails: progress made is kept, and
	// the rest waits for the next run. Relays running at once never hold
	// the same subject, so never reorder it. It returns how many it
	// deleted, and publish's error.
	Relay(ctx context.Context, heads, perSubject int, publish EventPublish) (int, error)
	// Stats counts the waiting events and tells how long the oldest has
	// waited (0 when none waits).
	Stats(ctx context.Context) (OutboxStats, error)
}

// OutboxStats is the answer of EventOutbox.Stats.
type OutboxStats struct {
	Pending   int
	OldestAge time.Duration
}

// EventPublisher sends events to the broker.
type EventPublisher interface {
	// Connected tells whether the broker is reachable now; the relay
	// waits while it is not.
	Connected() bool
	Publish(ctx context.Context, events []OutboxEvent) (acked []int64, err error)
}

// EventStream is the broker's stream the events are published to, as the
// relay checks it when it starts.
type EventStream interface {
	// EnsureStream creates the stream when it is missing, and reports what
	// an existing one lacks (the service never edits it).
	EnsureStream(ctx context.Context) error
}
