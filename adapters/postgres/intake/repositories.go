package intake

import (
	"github.com/acme3pl/fulfillment/adapters/postgres"
	intakeports "github.com/acme3pl/fulfillment/ports/intake"
)

// Repositories binds the intake's repositories to h: a unit of work's
// transaction (postgres.UnitOfWorkOf) or the pool. Its own are the order
// receipts; the rest are the kit's.
func Repositories(h postgres.Handle) intakeports.Repositories {
	return intakeports.Repositories{
		Receipts:      &OrderReceiptRepository{run: h.Runner(), events: h.TxEvents()},
		Organizations: postgres.Organizations(h),
		Warehouses:    postgres.Warehouses(h),
		Trail:         postgres.Trail(h),
	}
}

// Statements are the package's statements by name, for the one golden
// file of every statement (adapters/postgres/testdata/statements.golden).
func Statements() map[string]postgres.Statement {
	return map[string]postgres.Statement{
		"claimOrderSQL":            claimOrderSQL,
		"finishReceiptSQL":         finishReceiptSQL,
		"acceptOrderSQL":           acceptOrderSQL,
		"acceptOrderWithEventSQL":  acceptOrderWithEventSQL,
		"recordFailureSQL":         recordFailureSQL,
		"getReceiptSQL":            getReceiptSQL,
		"listReceiptsSQL":          listReceiptsSQL,
		"getReceiptWithPayloadSQL": getReceiptWithPayloadSQL,
		"listKeptSQL":              listKeptSQL,
		"purgePayloadsSQL":         purgePayloadsSQL,
		"failedOrderStatsSQL":      failedOrderStatsSQL,
	}
}
