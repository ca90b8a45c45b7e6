package billing

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/ports"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// exportOfInvoice reads every charge of an invoice (the CSV download),
// each handed to each as its row arrives: database/sql and pgdriver read a
// result row by row from the connection, so no more than a row and the
// driver's buffer is held, whatever the invoice's size.
//
// A large client's month (millions of charges) takes longer than the
// session's statement_timeout, which is set below the API's request
// deadline. The read runs in a read-only transaction of its own whose
// statement_timeout and idle_in_transaction_session_timeout are the
// caller's deadline instead (EXPORT_TIMEOUT's), set with SET LOCAL, so
// that they end with it and the connection returns to the pool with the
// session's bounds. Inside a caller's transaction (a repository of a unit
// of work) the query runs there, under that transaction's bounds.
func (r *ChargeRepository) exportOfInvoice(ctx context.Context, organizationID, invoiceID string, each func(invoicingports.InvoiceCharge) error) error {
	pool, ok := r.run.Pool()
	if !ok {
		return r.scanCharges(ctx, r.run, organizationID, invoiceID, ports.Page{}, each)
	}
	tx, err := pool.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	bound := "0" // no deadline: no bound but the caller's
	if deadline, ok := ctx.Deadline(); ok {
		bound = strconv.FormatInt(max(time.Until(deadline).Milliseconds(), 1), 10)
	}
	if _, err := tx.Tx.ExecContext(ctx, `SELECT set_config('statement_timeout', $1, true),
		set_config('idle_in_transaction_session_timeout', $1, true)`, bound); err != nil {
		return err
	}
	if err := r.scanCharges(ctx, r.run.InTx(tx), organizationID, invoiceID, ports.Page{}, each); err != nil {
		return err
	}
	return tx.Commit()
}

// scanCharges runs invoiceChargesSQL on run for page (Take 0: every
// charge) and hands each row to each.
func (r *ChargeRepository) scanCharges(ctx context.Context, run postgres.Runner, organizationID, invoiceID string, page ports.Page, each func(invoicingports.InvoiceCharge) error) error {
	var limit any // NULL: every charge
	if page.Take > 0 {
		limit = page.Take
	}
	return run.Query(ctx, invoiceChargesSQL, func(rows *sql.Rows) error {
		var c invoicingports.InvoiceCharge
		if err := rows.Scan(&c.ID, &c.Fee, &c.Title, &c.QuantityMilli, &c.UnitCost, &c.OccurredAt, &c.WarehouseID,
			&c.SourceType, &c.SourceID); err != nil {
			return err
		}
		return each(c)
	}, organizationID, invoiceID, page.Skip, limit, r.settings.Zone())
}
