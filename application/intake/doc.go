// Package intake holds the use cases of the storefront order intake and of the orders that failed:
// receive, refuse, replay and purge, and the receipts' reads.
package intake
