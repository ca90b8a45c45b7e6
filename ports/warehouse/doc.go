// Package warehouse declares the ports the warehouse's side consumes: the
// receipts and services it reports, billing's part of a report
// (ReportBilling), and the warehouse context's Repositories. Imported as
// warehouseports.
package warehouse
