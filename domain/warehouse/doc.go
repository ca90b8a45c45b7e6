// Package warehouse holds the rules of the warehouse's side: the receipts and services a warehouse
// reports, each idempotent on the warehouse's reference.
package warehouse
