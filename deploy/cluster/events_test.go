package cluster_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// The stream the pods publish to (the service creates it, with the subjects fulfillment.>, when
	// missing), and the subject of the intake's shipments in the sandbox environment.
	eventStream          = "FULFILLMENT"
	shipmentCreatedTopic = "fulfillment.sandbox.shipment.created"
	// How long the pods' relays may take to publish what the day left in the outbox.
	outboxDrainDeadline = time.Minute
)

// shipmentEvent is what the check reads of one shipment.created message.
type shipmentEvent struct {
	seq        uint64 // the stream's sequence number
	msgID      string // the Nats-Msg-Id header
	id         string // the CloudEvent's id
	typ        string
	subject    string // the CloudEvent's subject: the shipment ID
	org        string // the organizationid extension
	shipmentID string // data.id
	orderID    string // data.source.orderId
}

// eventsOnce is what the stream says about the day's shipments.
type eventsOnce struct {
	events    int           // shipment.created messages on the stream
	shipments int           // shipments of the storefront's orders in the database
	once      int           // of them, with exactly one event
	drained   time.Duration // until the outbox was empty after the rollback
}

// checkEvents waits for the pods' relays to empty the outbox, reads every
// shipment.created from the stream in the cluster's NATS and judges it
// against the shipments in the database: each exactly once, by id.
func checkEvents(t *testing.T, c *cluster, db *sql.DB) eventsOnce {
	t.Helper()
	drained, err := waitOutboxEmpty(db, outboxDrainDeadline)
	if err != nil {
		t.Fatal(err)
	}
	events, err := readShipmentCreated(c)
	if err != nil {
		t.Fatalf("reading %s from the stream %s: %v", shipmentCreatedTopic, eventStream, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shipments, err := idsByOrder(ctx, db, `SELECT source_order_id, id FROM shipments WHERE organization_id = $1 AND source_order_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	r, problems := judgeEvents(shipments, events)
	r.drained = drained
	for _, p := range problems {
		t.Error(p)
	}
	return r
}

// waitOutboxEmpty polls the pods' database until event_outbox has no row,
// and returns how long that took.
func waitOutboxEmpty(db *sql.DB, deadline time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM event_outbox`).Scan(&n)
		switch {
		case err != nil:
			return 0, fmt.Errorf("counting the outbox: %w", err)
		case n == 0:
			return time.Since(start), nil
		case time.Since(start) > deadline:
			return 0, fmt.Errorf("%d events still in the outbox %v after the rollback: the pods' relays did not publish them", n, deadline)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// nsDialer makes the NATS client's connections from inside the cluster's
// network namespace, where the server listens on the node's address.
type nsDialer struct{ c *cluster }

func (d nsDialer) Dial(network, address string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return d.c.dial(ctx, network, address)
}

// readShipmentCreated reads every message of the stream's shipment.created
// subject with an ordered consumer (ephemeral: it leaves nothing behind).
func readShipmentCreated(c *cluster) ([]shipmentEvent, error) {
	nc, err := nats.Connect(c.env["NATS_URL"], nats.SetCustomDialer(nsDialer{c}), nats.Timeout(5*time.Second),
		nats.Name("cluster-test"))
	if err != nil {
		return nil, fmt.Errorf("connecting to %s inside the namespace: %w", c.env["NATS_URL"], err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stream, err := js.Stream(ctx, eventStream)
	if err != nil {
		return nil, fmt.Errorf("the stream (the pods create it): %w", err)
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(shipmentCreatedTopic))
	if err != nil {
		return nil, err
	}
	stored := info.State.Subjects[shipmentCreatedTopic]
	if stored == 0 {
		return nil, nil
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{shipmentCreatedTopic}})
	if err != nil {
		return nil, err
	}
	var events []shipmentEvent
	for {
		batch, err := cons.Fetch(500, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return nil, err
		}
		last := false
		for msg := range batch.Messages() {
			meta, err := msg.Metadata()
			if err != nil {
				return nil, err
			}
			var ce struct {
				ID, Type, Subject string
				OrganizationID    string `json:"organizationid"`
				Data              struct {
					ID     string `json:"id"`
					Source *struct {
						OrderID string `json:"orderId"`
					} `json:"source"`
				} `json:"data"`
			}
			if err := json.Unmarshal(msg.Data(), &ce); err != nil {
				return nil, fmt.Errorf("message %d is no CloudEvent: %w: %s", meta.Sequence.Stream, err, msg.Data())
			}
			e := shipmentEvent{seq: meta.Sequence.Stream, msgID: msg.Headers().Get(jetstream.MsgIDHeader), id: ce.ID, typ: ce.Type,
				subject: ce.Subject, org: ce.OrganizationID, shipmentID: ce.Data.ID}
			if ce.Data.Source != nil {
				e.orderID = ce.Data.Source.OrderID
			}
			events = append(events, e)
			last = meta.NumPending == 0
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return nil, err
		}
		if last {
			break
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read %d of the %d messages stored: %w", len(events), stored, ctx.Err())
		}
	}
	if uint64(len(events)) < stored {
		return nil, fmt.Errorf("read %d messages, the stream stores %d", len(events), stored)
	}
	return events, nil
}

// judgeEvents is checkEvents' verdict on the stream's shipment.created
// messages against the database's shipment ids per order: the figures, and
// what breaks exactly-once by id — a shipment without its event or with
// several, an event naming another order, an event for a shipment the
// database does not have, an id seen twice, a message ID not the event's id.
func judgeEvents(shipments map[int64][]string, events []shipmentEvent) (eventsOnce, []string) {
	r := eventsOnce{events: len(events)}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	byShipment := map[string][]shipmentEvent{}
	seen := map[string]uint64{} // event id → the first message's sequence number
	for _, e := range events {
		if first, ok := seen[e.id]; ok {
			fail("event %s twice on the stream (messages %d and %d)", e.id, first, e.seq)
		} else {
			seen[e.id] = e.seq
		}
		if e.msgID != e.id {
			fail("message %d: Nats-Msg-Id %q, the event's id %q", e.seq, e.msgID, e.id)
		}
		if e.typ != "shipment.created" || e.subject != e.shipmentID || e.org != org {
			fail("message %d: type %q, subject %q, organization %q for data.id %q; want shipment.created of that shipment in %s",
				e.seq, e.typ, e.subject, e.org, e.shipmentID, org)
		}
		byShipment[e.shipmentID] = append(byShipment[e.shipmentID], e)
	}
	inDB := map[string]bool{}
	for order, ids := range shipments {
		for _, id := range ids {
			r.shipments++
			inDB[id] = true
			got := byShipment[id]
			switch len(got) {
			case 0:
				fail("order %d: no shipment.created for its shipment %s", order, id)
				continue
			case 1:
				r.once++
			default:
				var evIDs []string
				for _, e := range got {
					evIDs = append(evIDs, e.id)
				}
				fail("order %d: %d shipment.created for its shipment %s: %v", order, len(got), id, evIDs)
			}
			for _, e := range got {
				if e.orderID != strconv.FormatInt(order, 10) {
					fail("order %d: the shipment.created %s of its shipment %s names the order %q", order, e.id, id, e.orderID)
				}
			}
		}
	}
	for id, got := range byShipment {
		if !inDB[id] {
			fail("%d shipment.created for the shipment %q, which the database does not have", len(got), id)
		}
	}
	if len(events) == 0 {
		fail("no shipment.created on the stream")
	}
	slices.Sort(problems)
	return r, problems
}
