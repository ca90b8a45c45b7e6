// Package shipping holds the use cases of shipments and stock: create, submit, cancel, get and list
// shipments, list stock.
package shipping
