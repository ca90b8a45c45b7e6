DROP TABLE event_outbox;
