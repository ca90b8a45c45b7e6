// Package shipping declares the ports the shipping context consumes:
// shipments, inventory and its stock, the stock ledger, and shipping's
// Repositories. Imported as shippingports.
package shipping
