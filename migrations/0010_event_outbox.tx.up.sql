-- The transactional outbox of the platform's events (docs/events.md): a change
-- writes its event here in its own transaction; the relay of every replica
-- publishes the rows to NATS JetStream and deletes them once the broker has
-- acknowledged them.
--
-- id is the order of the outbox: a change locks the record it reports
-- before its event gets an id, so the events of one subject have ids in their
-- commit order, and the relay publishes each subject's rows by id.
-- event_id is the CloudEvents id, also the Nats-Msg-Id header: stable across
-- retries. body is the whole CloudEvent as published (structured JSON mode),
-- written once by the change. traceparent is the W3C trace context of the
-- change, so that the publish span links to it.
CREATE TABLE event_outbox (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id       text        NOT NULL,
    type           text        NOT NULL,
    subject        text        NOT NULL,
    broker_subject text        NOT NULL,
    body           text        NOT NULL,
    traceparent    text,
    recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The relay finds the oldest waiting event of a subject (the NOT EXISTS of
-- claimEventsSQL) and the rest of the subject in order.
CREATE INDEX event_outbox_subject_idx ON event_outbox (subject, id);

-- A queue table: every row is inserted once and deleted within moments, so
-- its dead rows are vacuumed after a fixed number of deletes rather than a
-- fraction of a table that is mostly empty (where autovacuum runs).
ALTER TABLE event_outbox SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
