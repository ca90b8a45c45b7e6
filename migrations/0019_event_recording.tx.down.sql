DROP TABLE event_recording;
