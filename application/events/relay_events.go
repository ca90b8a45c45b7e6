package events

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// RelayEvents publishes the events waiting in the outbox to the broker and
// deletes those it acknowledged: the relay every server runs
// (docs/events.md), and `fulfillment events relay`.
type RelayEvents struct{}

// ErrBrokerUnavailable: the events broker cannot be reached now; the
// events wait in the outbox.
var ErrBrokerUnavailable = errors.New("the events broker is unavailable")

// relayBatch bounds the subjects of one batch: each batch is one short
// transaction, open while the broker acknowledges it.
const relayBatch = 256

// relayPerSubject bounds the events of one subject in one batch: a
// subject's events go out one round trip after another, so this bounds a
// batch's length on a slow link too.
const relayPerSubject = 100

// relayBatches bounds one run, so that a run under steady load ends and
// its span with it; the job runs again at once when its last batch came
// full (Run).
const relayBatches = 20

// PublishBudget is how long a batch may start publishing events: with the
// broker's own bound on each acknowledgement after it, well inside the
// idle_in_transaction_session_timeout of the relay's sessions, which would
// end the batch's transaction. It cuts a batch short, never fails it: what
// the broker acknowledged by then is kept.
const PublishBudget = 2 * time.Second

// RelayEventsHandler answers RelayEvents with how many events it
// published and deleted.
type RelayEventsHandler struct {
	outbox    eventsports.EventOutbox
	publisher eventsports.EventPublisher
	tracer    trace.Tracer
	budget    time.Duration
}

// NewRelayEventsHandler builds the handler. budget is how long a batch
// may start publishing events (0: PublishBudget); the acknowledgements of
// the events it sent are waited for after it, within the publisher's
// bound on each.
func NewRelayEventsHandler(outbox eventsports.EventOutbox, publisher eventsports.EventPublisher, tracer trace.Tracer, budget time.Duration) *RelayEventsHandler {
	if budget <= 0 {
		budget = PublishBudget
	}
	return &RelayEventsHandler{outbox: outbox, publisher: publisher, tracer: tracer, budget: budget}
}

// Handle relays batch after batch while batches come full (more may
// wait), at most relayBatches of them. A batch is one trace: its span, and
// a span per event linked to the change's. With the broker away it does
// nothing and says so (ErrBrokerUnavailable). It returns how many events
// it published.
func (h *RelayEventsHandler) Handle(ctx context.Context, c RelayEvents) (int, error) {
	n, _, err := h.Run(ctx, c)
	return n, err
}

// Run is Handle, and also tells whether its last batch came full: the
// run stopped at relayBatches with more events that it could take at
// once, and the caller should run again without waiting.
func (h *RelayEventsHandler) Run(ctx context.Context, _ RelayEvents) (published int, more bool, err error) {
	for range relayBatches {
		if !h.publisher.Connected() {
			return published, false, ErrBrokerUnavailable
		}
		full := false
		n, err := h.outbox.Relay(ctx, relayBatch, relayPerSubject, func(ctx context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
			full = batchFull(events)
			return h.publish(ctx, events)
		})
		published += n
		if err != nil || !full {
			return published, false, err
		}
	}
	return published, true, nil
}

// batchFull tells whether a claimed batch may have left events it could
// have taken: it holds relayBatch subjects, or relayPerSubject events of
// one subject (a subject with thousands waiting goes on at once, batch
// after batch). A batch cut short by the budget counts as it was claimed.
func batchFull(events []eventsports.OutboxEvent) bool {
	perSubject := make(map[string]int, len(events))
	for _, e := range events {
		perSubject[e.Subject]++
		if perSubject[e.Subject] >= relayPerSubject {
			return true
		}
	}
	return len(perSubject) >= relayBatch
}

// publish publishes one batch in its own trace; the budget ends the
// batch's sending, not the waits for what it sent (EventPublish).
func (h *RelayEventsHandler) publish(ctx context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, h.budget)
	defer cancel()
	ctx, span := h.tracer.Start(ctx, "RelayEvents", trace.WithNewRoot(),
		trace.WithAttributes(attribute.Int("fulfillment.events.batch", len(events))))
	defer span.End()
	acked, err := h.publisher.Publish(ctx, events)
	span.SetAttributes(attribute.Int("fulfillment.events.acknowledged", len(acked)))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "publish")
	}
	return acked, err
}
