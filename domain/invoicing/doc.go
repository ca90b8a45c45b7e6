// Package invoicing holds the invoice as customers read it: its statuses, which of them are visible,
// its items and totals.
package invoicing
