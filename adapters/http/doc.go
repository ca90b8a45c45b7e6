// Package httpapi is the HTTP adapter: routes on gorilla/mux, DTOs in and
// out, one mapping from errors to problem+json responses (RFC 9457), the
// middleware of CONTRACT §2 (trace IDs, panics, metrics, access log,
// authentication) and the health endpoints.
package httpapi
