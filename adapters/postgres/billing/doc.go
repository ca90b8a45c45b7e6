// Package billing is the billing context's part of the postgres adapter:
// the rate cards, the charges (their accruals, sums, storage and the CSV
// export), the billing periods and their finalization into invoices
// (billingports), on the kit of adapters/postgres. It writes and reads
// the invoices it finalizes with adapters/postgres/invoicing's rows, and
// binds the charges behind an invoice's lines for it (InvoiceCharges).
package billing
