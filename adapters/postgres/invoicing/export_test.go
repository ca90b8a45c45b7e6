package invoicing

import (
	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// sqlOf is s's text: the invoices' statements are declared SELECTs.
func sqlOf(s postgres.Statement) string { return string(s.(postgres.SQLSelect)) }

// UnpreparedInvoices are the invoices on db with statements that run
// unprepared, planned at each run (the kit's UnpreparedRepositories).
func UnpreparedInvoices(db bun.IDB) invoicingports.InvoiceRepository {
	return &InvoiceRepository{run: postgres.NewRunner(db)}
}

// ReadStatements are the texts of the statements the invoice list without
// a search term and the detail prepare.
func ReadStatements() []string {
	out := []string{sqlOf(invoiceItemsSQL), sqlOf(invoiceDetailSQL)}
	for _, orders := range invoiceLists {
		for _, stmts := range orders {
			out = append(out, sqlOf(stmts.list), sqlOf(stmts.listOfStatus))
		}
	}
	return out
}

// FillOf is the search_fill the repository computes for s.
func FillOf(s string) string {
	f, _ := fillOf(s)
	return string(f)
}

// FillPattern is the LIKE pattern on search_fill of a lower-cased term.
var FillPattern = fillPattern

// GramQuery is the tsquery of the gram index that a short term looks up.
var GramQuery = gramQuery
