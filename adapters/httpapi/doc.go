// Package httpapi is the HTTP adapter's kit and server: one mapping from
// errors to problem+json responses (RFC 9457, errors.go and problem.go),
// strict JSON (json.go reads bodies strictly and names the member a
// decoding error is about), the list query and its page (pagination.go),
// the caller in the context (PrincipalFrom), the Group every group of
// routes embeds, the middleware every answer goes through (trace IDs,
// panics, metrics, access log, authentication, admission, rate limits),
// and the health endpoints and the API description.
//
// A resource's routes and handlers are in its file (shipments.go,
// storefront.go, ...), each handler calling one use case; its DTOs beside
// it (shipment_dto.go), the records' in package resources, which the events
// adapter shares. Handlers map JSON, paths and queries to commands and
// results to DTOs; the rules are the domain's.
package httpapi
