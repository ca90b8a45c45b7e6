// Package domain holds the entities, value types and invariants of the
// fulfillment service. It imports nothing but the standard library.
package domain
