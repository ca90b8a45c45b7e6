// Package events holds the relay of the platform's events: it publishes what the other contexts' use
// cases recorded in the outbox, in their transactions (docs/events.md). Every server runs it as a job,
// and `fulfillment events relay` once.
package events
