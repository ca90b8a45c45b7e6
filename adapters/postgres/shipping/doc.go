// Package shipping is the shipping context's part of the postgres adapter:
// the shipments, the products and cartons with their stock, and the stock
// ledger (shippingports), on the kit of adapters/postgres (its runner,
// statements and errors). The intake's acceptance, the warehouse's bind
// and the fixture store use its repositories and parts (repositories.go).
package shipping
