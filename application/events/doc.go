// Package events holds the relay of the platform's events: it publishes what the other contexts' use
// cases recorded in the outbox, in their transactions (docs/events.md). Every server runs it with its
// run policy (RunRelay: pacing, waking, back-off), and `fulfillment events relay` until the outbox is empty.
package events
