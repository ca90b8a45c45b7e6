-- Whether the deployment records the platform's events (docs/events.md): one
-- row, the deployment's word, so that a process whose own environment lacks
-- EVENTS_NATS_URL (an operator's command, a Job) records events when the
-- servers run with it. A server with EVENTS_NATS_URL sets recording and
-- asserted_at at start and every minute; a server without it clears recording
-- once no server with it has said so for a while. No row: never set, no event
-- is recorded. singleton keeps the table to that one row.
CREATE TABLE event_recording (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    recording   boolean     NOT NULL,
    asserted_at timestamptz NOT NULL
);
