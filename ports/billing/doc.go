// Package billing declares the ports billing consumes: rate cards,
// charges, billing periods and their boundary types, and billing's
// Repositories. Imported as billingports.
package billing
