// Package invoicing declares the ports invoicing consumes: invoices as
// customers read them, the charges behind their lines, and invoicing's
// Repositories. Imported as invoicingports.
package invoicing
