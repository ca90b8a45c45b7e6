// Package intake is the intake's part of the postgres adapter: the order
// receipts of the storefront's orders (intakeports), on the kit of
// adapters/postgres (its runner, statements and errors, the parts of the
// shipments' and the outbox's statements an order's acceptance writes
// with, and the kit's repositories its Repositories bind).
package intake
