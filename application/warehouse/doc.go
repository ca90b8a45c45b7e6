// Package warehouse holds the use cases of the warehouse's side: ship a shipment, record a receipt or
// a service, list the warehouse's shipments. Billing's part of a report is asked of
// warehouseports.ReportBilling, its event recorded in its transaction.
package warehouse
