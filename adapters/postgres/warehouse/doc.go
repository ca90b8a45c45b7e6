// Package warehouse is the warehouse context's part of the postgres
// adapter: the receipts and services a warehouse reports
// (warehouseports), on the kit of adapters/postgres (its runner,
// statements and errors, and the kit's repositories its Repositories bind).
package warehouse
