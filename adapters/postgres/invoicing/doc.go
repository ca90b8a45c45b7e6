// Package invoicing is the invoicing context's part of the postgres
// adapter: the invoices, their list and search, and their rows
// (invoicingports), on the kit of adapters/postgres. Billing's
// finalization (adapters/postgres/billing) writes invoices with its rows
// and reads them back with its scanner (repositories.go); the charges
// behind an invoice's lines are billing's, handed to Repositories.
package invoicing
