// Package broker publishes the platform's events to NATS JetStream and
// reads them back: the CloudEvents envelope of an event (cloudevents.go),
// the relay's publisher (publisher.go), and the consumer of
// `fulfillment events tail` (tail.go). docs/events.md describes them.
package broker
