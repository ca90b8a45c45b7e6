// Package intake holds the rules of the storefront order intake: the order a storefront sends,
// checked once, and its receipt (claimed per delivery; succeeded, skipped or failed, a failed one
// keeping its body for a replay).
package intake
