// Package invoicing holds the reads of invoices: list and get invoices, an invoice's charges (their
// writes are billing's).
package invoicing
