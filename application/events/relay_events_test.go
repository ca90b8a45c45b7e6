package events_test

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"

	eventsapp "github.com/acme3pl/fulfillment/application/events"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// queueOutbox is an outbox in memory: a claim takes the first events of up
// to heads subjects, up to perSubject each, and deletes what publish
// acknowledged.
type queueOutbox struct {
	events []eventsports.OutboxEvent
	claims int
}

func (q *queueOutbox) Relay(ctx context.Context, heads, perSubject int, publish eventsports.EventPublish) (int, error) {
	q.claims++
	taken := map[string]int{}
	var batch []eventsports.OutboxEvent
	for _, e := range q.events {
		if _, ok := taken[e.Subject]; !ok && len(taken) == heads {
			continue
		}
		if taken[e.Subject] < perSubject {
			taken[e.Subject]++
			batch = append(batch, e)
		}
	}
	if len(batch) == 0 {
		return 0, nil
	}
	acked, err := publish(ctx, batch)
	done := map[int64]bool{}
	for _, seq := range acked {
		done[seq] = true
	}
	left := q.events[:0]
	for _, e := range q.events {
		if !done[e.Seq] {
			left = append(left, e)
		}
	}
	q.events = left
	return len(done), err
}

func (q *queueOutbox) Stats(context.Context) (eventsports.OutboxStats, error) {
	return eventsports.OutboxStats{Pending: len(q.events)}, nil
}

// ackAll acknowledges every event.
type ackAll struct{}

func (ackAll) Connected() bool { return true }

func (ackAll) Publish(_ context.Context, events []eventsports.OutboxEvent) ([]int64, error) {
	acked := make([]int64, len(events))
	for i, e := range events {
		acked[i] = e.Seq
	}
	return acked, nil
}

// A run goes on while its batches come full — as many subjects as a batch
// takes, or a subject's whole share — and says whether it stopped with
// more to take at once; a batch that is merely large is not full.
func TestRelayRunGoesOnWhileBatchesComeFull(t *testing.T) {
	for _, c := range []struct {
		name           string
		subjects, each int
		claims         int
		published      int
		more           bool
	}{
		{"150 subjects of one event", 150, 1, 1, 150, false},
		{"300 subjects of one event", 300, 1, 2, 300, false},
		{"one subject of 150 events", 1, 150, 2, 150, false},
		{"one subject of 5,000 events", 1, 5000, 20, 2000, true},
	} {
		q := &queueOutbox{}
		seq := int64(0)
		for i := range c.each {
			for s := range c.subjects {
				seq++
				q.events = append(q.events, eventsports.OutboxEvent{Seq: seq, ID: fmt.Sprintf("evt_%d_%d", s, i), Subject: fmt.Sprintf("shp_%d", s)})
			}
		}
		relay := eventsapp.NewRelayEventsHandler(q, ackAll{}, noop.NewTracerProvider().Tracer(""), 0)
		n, more, err := relay.Run(context.Background(), eventsapp.RelayEvents{})
		if err != nil || n != c.published || more != c.more || q.claims != c.claims {
			t.Errorf("%s: published %d, more %v, %d claims, err %v; want %d, %v, %d claims",
				c.name, n, more, q.claims, err, c.published, c.more, c.claims)
		}
	}
}
