// Package httpapi is the HTTP adapter: routes on gorilla/mux, DTOs in and
// out, one mapping from errors to problem+json responses (RFC 9457), the
// middleware every answer goes through (trace IDs, panics, metrics, access log,
// authentication) and the health endpoints.
//
// A resource's routes and handlers are in its file (shipments.go,
// storefront.go, ...), each handler calling one use case; its DTOs beside
// it (shipment_dto.go), the records' in package resources, which the events
// adapter shares. Handlers map JSON, paths and queries to commands and
// results to DTOs; the rules are the domain's. json.go reads bodies
// strictly and names the member a decoding error is about.
package httpapi
