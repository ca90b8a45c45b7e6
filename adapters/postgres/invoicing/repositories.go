package invoicing

import (
	"database/sql"
	"fmt"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// Repositories is the invoicing context's bind: it binds the invoices to
// h with the charges behind their lines that charges binds (billing's,
// adapters/postgres/billing's InvoiceCharges: billing builds on invoicing,
// so this package does not import it).
func Repositories(charges func(postgres.Handle) invoicingports.InvoiceCharges) func(postgres.Handle) invoicingports.Repositories {
	return func(h postgres.Handle) invoicingports.Repositories {
		return invoicingports.Repositories{
			Invoices: Invoices(h),
			Charges:  charges(h),
		}
	}
}

// Invoices are the invoices on h.
func Invoices(h postgres.Handle) invoicingports.InvoiceRepository {
	return &InvoiceRepository{run: h.Runner()}
}

// Statements are the package's statements by name, for the one golden
// file of every statement (adapters/postgres/testdata/statements.golden).
func Statements() map[string]postgres.Statement {
	all := map[string]postgres.Statement{
		"invoiceDetailSQL": invoiceDetailSQL,
		"invoiceItemsSQL":  invoiceItemsSQL,
	}
	for key, orders := range invoiceLists {
		for dir, l := range orders {
			kinds := []string{"list", "listOfStatus", "search", "contains", "shortTerm"}
			for i, s := range []postgres.Statement{l.list, l.listOfStatus, l.search, l.contains, l.shortTerm} {
				all[fmt.Sprintf("invoiceLists[%s][%s].%s", key, [2]string{"desc", "asc"}[dir], kinds[i])] = s
			}
		}
	}
	return all
}

// The rows and the scanner that billing's finalization
// (adapters/postgres/billing) and the fixture store
// (adapters/postgres/fixture) write and read invoices with.

// InvoiceRow and InvoiceItemRow are an invoice's rows.
type (
	InvoiceRow     = invoiceRow
	InvoiceItemRow = invoiceItemRow
)

// InvoiceToRows is inv's row and its items'.
func InvoiceToRows(inv *invoicing.Invoice) (InvoiceRow, []InvoiceItemRow) { return invoiceToRows(inv) }

// ScanInvoice reads the invoice columns of the invoice lists' statements
// and more after them (scanInvoice).
func ScanInvoice(rows *sql.Rows, organizationID string, more ...any) (InvoiceRow, error) {
	return scanInvoice(rows, organizationID, more...)
}

// InvoiceFromRows is the invoice of row and its items.
func InvoiceFromRows(row InvoiceRow, items []InvoiceItemRow) (*invoicing.Invoice, error) {
	return invoiceFromRows(row, items)
}

// VisibleStatuses are the statuses of the invoices an organization may
// see, as SQL literals (visibleStatuses): billing's invoiceStatusSQL
// reads only those.
var VisibleStatuses = visibleStatuses
