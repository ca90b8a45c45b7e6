// Package intake declares the ports the order intake consumes: the
// receipts of storefront orders, what their claim reads, and the intake's
// Repositories. Imported as intakeports.
package intake
