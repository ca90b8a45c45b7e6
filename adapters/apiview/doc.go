// Package apiview is the platform's records as the API renders them
// (api/openapi.yaml): a shipment, an invoice, a storefront order's receipt,
// a warehouse receipt, and the one way times are written. The HTTP adapter
// answers with them, and the events adapter's data of an event is the same
// document (docs/events.md), so that an event's data equals the GET of its
// record. It imports neither adapter: both import it.
package apiview
