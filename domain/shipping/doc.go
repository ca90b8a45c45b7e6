// Package shipping holds the rules of shipments and stock: the shipment (drafts, Pick & Pack and
// SPD, its transitions from draft to shipped), the items it ships, stock levels and the changes of
// the stock ledger.
package shipping
