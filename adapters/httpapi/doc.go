// Package httpapi is the HTTP adapter's kit and server: one mapping from
// errors to problem+json responses (RFC 9457, errors.go and problem.go),
// strict JSON (json.go reads bodies strictly and names the member a
// decoding error is about), the list query and its page (pagination.go),
// the caller in the context (PrincipalFrom), the Group every group of
// routes embeds, the middleware every answer goes through (trace IDs,
// panics, metrics, access log, authentication, admission, rate limits),
// and the health endpoints and the API description.
//
// A context's routes are a package below this one (shipping, intake,
// warehouse, invoicing, access), which imports this kit and no other
// context's routes; bootstrap mounts each through its Routes, so this
// package imports none of them. There a resource's routes and handlers are
// in its file (shipping/shipments.go, intake/storefront.go, ...), each
// handler calling one use case; its DTOs beside it (shipping/shipment_dto.go),
// the records' in package apiview, which the events adapter shares.
// Handlers map JSON, paths and queries to commands and results to DTOs; the
// rules are the domain's.
package httpapi
