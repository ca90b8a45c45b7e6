package postgres

import (
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
)

// The rows of the kit's repositories that the fixture store
// (adapters/postgres/fixture) writes as they do: the warehouses (the
// kernel's), and the invoices, still in the kit.

// WarehouseRow is a warehouse's row.
type WarehouseRow = warehouseRow

// WarehouseToRow is w's row.
func WarehouseToRow(w domain.Warehouse) WarehouseRow { return warehouseToRow(w) }

// InvoiceRow and InvoiceItemRow are an invoice's rows.
type (
	InvoiceRow     = invoiceRow
	InvoiceItemRow = invoiceItemRow
)

// InvoiceToRows is inv's row and its items'.
func InvoiceToRows(inv *invoicing.Invoice) (InvoiceRow, []InvoiceItemRow) { return invoiceToRows(inv) }
