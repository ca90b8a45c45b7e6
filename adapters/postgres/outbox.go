package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
	"go.opentelemetry.io/otel/propagation"

	"github.com/acme3pl/fulfillment/ports"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// The transactional outbox of the platform's events (docs/events.md). A use
// case records an event through r.Events (its context's Repositories) inside its unit of work;
// the recorder encodes it at once (the record as the change left it) and
// keeps it until the transaction writes it: in a statement the transaction
// runs anyway (the intake's acceptOrderSQL), or in one INSERT just before
// the commit (insertEventsSQL). The relay (EventOutboxRepository) publishes
// and deletes.

// Outbox is what recording events needs: the encoder of their messages
// (CloudEvents around the API's view of the record), the IDs of events,
// and a function called after a transaction that wrote events commits
// (the local relay's wake-up). A nil *Outbox is events off: nothing is
// recorded.
type Outbox struct {
	Encoder eventsports.EventEncoder
	IDs     ports.IDGenerator
	Wake    func() // may be nil
}

// outboxRow is an encoded event waiting for its transaction to write it.
type outboxRow struct {
	eventID, typ, subject, brokerSubject, body, traceparent string
}

// args are the row's values in the order of the outbox's columns in
// insertEventCTE and insertEventsSQL.
func (o outboxRow) args() []any {
	return []any{o.eventID, o.typ, o.subject, o.brokerSubject, o.body, nullIfEmpty(o.traceparent)}
}

// nullIfEmpty stores "" as NULL, as the table's checks expect.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// txEvents records the events of one unit of work (eventsports.EventRecorder).
type txEvents struct {
	outbox  *Outbox // nil: events off
	inTx    bool    // false: bound to the pool, where there is no transaction to record in
	pending []outboxRow
	wrote   bool // a statement of the transaction wrote events
}

var _ eventsports.EventRecorder = (*txEvents)(nil)

var errEventOutsideTx = errors.New("record an event: only inside a unit of work")

// Record implements eventsports.EventRecorder.
func (t *txEvents) Record(ctx context.Context, e eventsports.Event) error {
	if !t.inTx {
		return errEventOutsideTx
	}
	if t.outbox == nil {
		return nil
	}
	id := t.outbox.IDs.NewID("evt")
	subject, body, err := t.outbox.Encoder.EncodeEvent(id, e)
	if err != nil {
		return fmt.Errorf("encode event %s of %s: %w", e.Type, e.Subject, err)
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	t.pending = append(t.pending, outboxRow{
		eventID: id, typ: string(e.Type), subject: e.Subject, brokerSubject: subject, body: string(body),
		traceparent: carrier.Get("traceparent"),
	})
	return nil
}

// takeOne hands the one pending event to a statement that writes it
// itself; nil when none or several are pending (flush writes those).
func (t *txEvents) takeOne() *outboxRow {
	if t == nil || len(t.pending) != 1 {
		return nil
	}
	row := t.pending[0]
	t.pending, t.wrote = nil, true
	return &row
}

// insertEventCTE writes one event in a statement of the transaction, as a
// data-modifying common table expression ($27 … $32 of acceptOrderSQL's
// variant).
const insertEventCTE = `new_event AS (
	INSERT INTO event_outbox (event_id, type, subject, broker_subject, body, traceparent)
	VALUES ($27, $28, $29, $30, $31, $32)
)`

// insertEventsSQL writes the events a transaction recorded and no
// statement of it wrote, in the order recorded, just before the commit.
const insertEventsSQL sqlInsert = `INSERT INTO event_outbox (event_id, type, subject, broker_subject, body, traceparent)
SELECT e.event_id, e.type, e.subject, e.broker_subject, e.body, nullif(e.traceparent, '')
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
	WITH ORDINALITY AS e(event_id, type, subject, broker_subject, body, traceparent, n)
ORDER BY e.n`

// flush writes what is pending with insertEventsSQL.
func (t *txEvents) flush(ctx context.Context, run runner) error {
	if len(t.pending) == 0 {
		return nil
	}
	cols := make([][]string, 6)
	for _, row := range t.pending {
		for i, v := range []string{row.eventID, row.typ, row.subject, row.brokerSubject, row.body, row.traceparent} {
			cols[i] = append(cols[i], v)
		}
	}
	args := make([]any, len(cols))
	for i, c := range cols {
		args[i] = pgArray(c)
	}
	if _, err := run.exec(ctx, insertEventsSQL, args...); err != nil {
		return dbErr(err)
	}
	t.pending, t.wrote = nil, true
	return nil
}

// EventOutboxRepository implements eventsports.EventOutbox: the relay's side.
//
// It remembers about where the live part of the outbox begins (floor):
// floorMargin ids below the oldest head it last took. Below that, rows are
// deleted ones, or held by another relay, or written by a transaction that
// got its id long before it committed. Published rows are deleted at the
// front of the outbox, and until they are vacuumed away every scan from the
// start would step over them (under load, most of a claim's time). So a
// claim looks past the floor, and a claim that finds nothing there, or one
// a second after the last full scan, looks from the start again: such a
// late row waits a second at most, and order per subject does not depend
// on the floor (the NOT EXISTS of claimEventsSQL looks at the whole
// subject).
type EventOutboxRepository struct {
	db    *bun.DB
	stmts *statements

	mu       sync.Mutex
	floor    int64     // claims look at ids above it
	fullScan time.Time // of the last claim from the start
}

var _ eventsports.EventOutbox = (*EventOutboxRepository)(nil)

// NewEventOutboxRepository returns the relay's side of the outbox on db.
func NewEventOutboxRepository(db *bun.DB) *EventOutboxRepository {
	return &EventOutboxRepository{db: db, stmts: newStatements(db)}
}

// claimEventsSQL takes a batch of waiting events, in one statement of the
// relay's transaction, which deletes those the broker acknowledged
// (deleteEventsSQL) before it commits. It takes the oldest waiting event
// of each subject that no other relay holds — FOR UPDATE SKIP LOCKED on
// the heads: a row with an older one of its subject still in the outbox is
// no head, so while a relay holds a subject's head, no other relay can
// take any row of that subject — then, for each head taken, the events of
// its subject that follow, up to $2. Rows after a head need no lock of
// their own: no other relay can see them as heads until the head's delete
// has committed, and then the first one left is the head. The rows come
// back in no order; Relay sorts them by id.
//
// $3 is the floor (EventOutboxRepository): heads are looked for above it.
const claimEventsSQL sqlSelect = `WITH heads AS (
	SELECT o.id, o.subject FROM event_outbox AS o
	WHERE o.id > $3
		AND NOT EXISTS (SELECT 1 FROM event_outbox AS p WHERE p.subject = o.subject AND p.id < o.id)
	ORDER BY o.id
	LIMIT $1
	FOR UPDATE SKIP LOCKED
)
SELECT e.id, e.event_id, e.type, e.subject, e.broker_subject, e.body, coalesce(e.traceparent, ''), e.recorded_at
FROM heads AS h
CROSS JOIN LATERAL (
	SELECT * FROM event_outbox AS e WHERE e.subject = h.subject AND e.id >= h.id ORDER BY e.id LIMIT $2
) AS e`

// deleteEventsSQL deletes the events of a batch the broker acknowledged.
const deleteEventsSQL sqlDelete = `DELETE FROM event_outbox WHERE id = ANY($1::bigint[])`

// Relay implements eventsports.EventOutbox in one transaction: claimEventsSQL
// (unprepared) takes a batch, publish publishes it, and deleteEventsSQL
// deletes the leading events of each subject the broker acknowledged
// (ackedPrefixes) — all of them, or, when publish stopped short or
// failed, those it got through — and the transaction commits: the next
// run takes each subject from its first event left, with the same IDs (the
// stream drops those it has stored already). The transaction stays open
// while publish waits for the broker; publish must end within the
// session's idle_in_transaction_session_timeout, or the database ends the
// transaction and the whole batch is published again.
func (r *EventOutboxRepository) Relay(ctx context.Context, heads, perSubject int, publish eventsports.EventPublish) (int, error) {
	r.stmts.prepareWanted(ctx)
	floor := r.claimFloor()
	var deleted int
	var pubErr error
	err := r.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// Planned at each run, for the outbox as it is: a plan made once
		// for a near-empty outbox (a fresh connection after a vacuum, the
		// statistics of an empty table) turned quadratic in the thousands
		// of rows the broker's absence leaves, and the relay fell minutes
		// behind.
		run := runner{db: tx, stmts: r.stmts}.adHocStatements()
		var events []eventsports.OutboxEvent
		err := run.query(ctx, claimEventsSQL, func(rows *sql.Rows) error {
			var e eventsports.OutboxEvent
			var body, typ string
			if err := rows.Scan(&e.Seq, &e.ID, &typ, &e.Subject, &e.BrokerSubject, &body, &e.TraceParent, &e.RecordedAt); err != nil {
				return err
			}
			e.Type, e.Body = eventsports.EventType(typ), []byte(body)
			events = append(events, e)
			return nil
		}, heads, perSubject, floor)
		if err != nil {
			return err
		}
		r.moveFloor(floor, events)
		if len(events) == 0 {
			return nil
		}
		slices.SortFunc(events, func(a, b eventsports.OutboxEvent) int { return cmp.Compare(a.Seq, b.Seq) })
		acked, err := publish(ctx, events)
		pubErr = err
		done := ackedPrefixes(events, acked)
		if len(done) == 0 {
			return nil
		}
		if _, err := run.exec(ctx, deleteEventsSQL, pgArray(done)); err != nil {
			return err
		}
		deleted = len(done)
		return nil
	})
	if err != nil {
		return 0, cmp.Or(pubErr, dbErr(err))
	}
	return deleted, pubErr
}

// ackedPrefixes are the Seq of the leading events of each subject of
// events (sorted by Seq) that are all in acked: an event whose subject
// has an earlier one unacknowledged stays, whatever the broker said of
// it, so that the outbox never hands a subject on with a gap.
func ackedPrefixes(events []eventsports.OutboxEvent, acked []int64) []int64 {
	ok := make(map[int64]bool, len(acked))
	for _, seq := range acked {
		ok[seq] = true
	}
	stopped := map[string]bool{}
	var out []int64
	for _, e := range events {
		if stopped[e.Subject] || !ok[e.Seq] {
			stopped[e.Subject] = true
			continue
		}
		out = append(out, e.Seq)
	}
	return out
}

// fullScanEvery is how often a claim looks at the outbox from its start.
const fullScanEvery = time.Second

// floorMargin is how far below the oldest head it took a relay looks next:
// the ids that transactions still in flight may hold (an id is taken when
// the event is written, moments before the commit; concurrent changes
// commit in another order).
const floorMargin = 1000

// claimFloor is the floor of the next claim: 0 (from the start) once a
// second.
func (r *EventOutboxRepository) claimFloor() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.fullScan) >= fullScanEvery {
		r.floor, r.fullScan = 0, time.Now()
	}
	return r.floor
}

// moveFloor sets the floor below the oldest event a claim from floor took
// (they are in no order), or back to the start when it took none.
func (r *EventOutboxRepository) moveFloor(floor int64, events []eventsports.OutboxEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(events) == 0 {
		r.floor = 0
		if floor == 0 {
			r.fullScan = time.Now()
		}
		return
	}
	oldest := events[0].Seq
	for _, e := range events {
		oldest = min(oldest, e.Seq)
	}
	r.floor = max(r.floor, oldest-1-floorMargin)
}

// outboxStatsSQL counts the waiting events and the oldest one's age by the
// database's clock (the one that stamped recorded_at).
const outboxStatsSQL sqlSelect = `SELECT count(*), coalesce(extract(epoch FROM clock_timestamp() - min(recorded_at)), 0)::float8
FROM event_outbox`

// Stats implements eventsports.EventOutbox.
func (r *EventOutboxRepository) Stats(ctx context.Context) (eventsports.OutboxStats, error) {
	var (
		out eventsports.OutboxStats
		age float64
	)
	err := runner{db: r.db, stmts: r.stmts}.query(ctx, outboxStatsSQL, func(rows *sql.Rows) error {
		return rows.Scan(&out.Pending, &age)
	})
	if err != nil {
		return eventsports.OutboxStats{}, dbErr(err)
	}
	out.OldestAge = max(time.Duration(age*float64(time.Second)), 0)
	return out, nil
}

// EventRecording is the deployment's word on whether events are recorded
// (the table event_recording, one row): a server with EVENTS_NATS_URL says
// so (Assert), a server without it takes it back once no server with it
// has said so for a while (Withdraw), and a process without EVENTS_NATS_URL
// of its own — an operator's command, a Job — reads it once, when it builds
// its recorder (On). Its statements run unprepared: each runs once a minute
// or once a process.
type EventRecording struct{ run runner }

// NewEventRecording returns the deployment's word on db.
func NewEventRecording(db *bun.DB) *EventRecording {
	return &EventRecording{run: runner{db: db}}
}

// assertRecordingSQL says that events are recorded, as of the database's
// clock (the same for every replica).
const assertRecordingSQL sqlInsert = `INSERT INTO event_recording (recording, asserted_at) VALUES (true, now())
ON CONFLICT (singleton) DO UPDATE SET recording = true, asserted_at = now()`

// withdrawRecordingSQL stops the recording unless it was asserted less than
// $1 seconds ago.
const withdrawRecordingSQL sqlUpdate = `UPDATE event_recording SET recording = false
WHERE recording AND asserted_at < now() - make_interval(secs => $1)`

// recordingSQL reads the word; no row is no recording.
const recordingSQL sqlSelect = `SELECT recording FROM event_recording`

// Assert says that the deployment records events, now.
func (r *EventRecording) Assert(ctx context.Context) error {
	_, err := r.run.exec(ctx, assertRecordingSQL)
	return dbErr(err)
}

// Withdraw says that events are no longer recorded unless they were
// asserted within the last quiet (a server with EVENTS_NATS_URL still
// runs); withdrawn reports that this call turned the recording off. A
// schema before the table has nothing to withdraw.
func (r *EventRecording) Withdraw(ctx context.Context, quiet time.Duration) (withdrawn bool, err error) {
	n, err := r.run.exec(ctx, withdrawRecordingSQL, quiet.Seconds())
	if undefinedTable(err) {
		return false, nil
	}
	return n > 0, dbErr(err)
}

// On tells whether the deployment records events: false when it never
// said so, or when the table does not exist yet (a schema before it: no
// server has said so either).
func (r *EventRecording) On(ctx context.Context) (bool, error) {
	on := false
	err := r.run.query(ctx, recordingSQL, func(rows *sql.Rows) error { return rows.Scan(&on) })
	if undefinedTable(err) {
		return false, nil
	}
	return on, dbErr(err)
}

// undefinedTable tells whether err is PostgreSQL's undefined_table.
func undefinedTable(err error) bool {
	var pgErr pgdriver.Error
	return errors.As(err, &pgErr) && pgErr.Field('C') == "42P01"
}
