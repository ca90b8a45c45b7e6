package application

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme3pl/fulfillment/ports"
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

// relayBatches bounds one run, so that a run under steady load ends and
// its span with it; the job runs again at once when a run published.
const relayBatches = 20

// publishBudget bounds the broker's acknowledgements of one batch: below
// the database's idle_in_transaction_session_timeout (three quarters of
// REQUEST_TIMEOUT), which would end the batch's transaction.
const publishBudget = 2 * time.Second

// RelayEventsHandler answers RelayEvents with how many events it
// published and deleted.
type RelayEventsHandler struct {
	outbox    ports.EventOutbox
	publisher ports.EventPublisher
	tracer    trace.Tracer
	budget    time.Duration
}

// NewRelayEventsHandler builds the handler. budget bounds the wait for one
// batch's acknowledgements (0: two seconds).
func NewRelayEventsHandler(outbox ports.EventOutbox, publisher ports.EventPublisher, tracer trace.Tracer, budget time.Duration) *RelayEventsHandler {
	if budget <= 0 {
		budget = publishBudget
	}
	return &RelayEventsHandler{outbox: outbox, publisher: publisher, tracer: tracer, budget: budget}
}

// Handle relays batch after batch while batches come full (more may
// wait), at most relayBatches of them. A batch is one trace: its span, and
// a span per event linked to the change's. With the broker away it does
// nothing and says so (ErrBrokerUnavailable). It returns how many events
// it published; Full(n) tells the caller that more may wait.
func (h *RelayEventsHandler) Handle(ctx context.Context, _ RelayEvents) (int, error) {
	total := 0
	for range relayBatches {
		if !h.publisher.Connected() {
			return total, ErrBrokerUnavailable
		}
		n, err := h.outbox.Relay(ctx, relayBatch, h.publish)
		total += n
		if err != nil || n < relayBatch {
			return total, err
		}
	}
	return total, nil
}

// Full tells whether a run that published n events may have left events
// it could take at once: its last batch came full.
func (h *RelayEventsHandler) Full(n int) bool { return n >= relayBatch }

// publish publishes one batch within the budget, in its own trace.
func (h *RelayEventsHandler) publish(ctx context.Context, events []ports.OutboxEvent) ([]int64, error) {
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
