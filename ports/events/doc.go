// Package events declares the platform's events (docs/events.md): their
// types, the recorder a unit of work records them with, the outbox the
// relay reads and the publisher it sends them to. Imported as eventsports.
package events
