// Package broker publishes the platform's events to NATS JetStream and
// reads them back: the CloudEvents envelope of an event (cloudevents.go) and
// its data (event_data.go, the records of package apiview),
// the relay's publisher (publisher.go), and the consumer of
// `fulfillment events tail` (tail.go). docs/events.md describes them.
package broker
