package postgres

import (
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
)

// The rows of the kit's repositories that the fixture store
// (adapters/postgres/fixture) writes as they do: the warehouses (the
// kernel's), and those of the contexts still in the kit.

// WarehouseRow is a warehouse's row.
type WarehouseRow = warehouseRow

// WarehouseToRow is w's row.
func WarehouseToRow(w domain.Warehouse) WarehouseRow { return warehouseToRow(w) }

// InventoryTable is the table of the products or the cartons.
func InventoryTable(kind shipping.ItemKind) string { return inventoryTable(kind) }

// StockTable is the stock table of kind and its column of the item.
func StockTable(kind shipping.ItemKind) (table, column string) { return stockTable(kind) }

// MovementsCTE is the stock ledger's common table expression that writes
// the movements of a CTE named moves.
const MovementsCTE = movementsCTE

// StockCheckErr maps a violation of a stock table's CHECKs.
func StockCheckErr(err error) error { return stockCheckErr(err) }

// InvoiceRow and InvoiceItemRow are an invoice's rows.
type (
	InvoiceRow     = invoiceRow
	InvoiceItemRow = invoiceItemRow
)

// InvoiceToRows is inv's row and its items'.
func InvoiceToRows(inv *invoicing.Invoice) (InvoiceRow, []InvoiceItemRow) { return invoiceToRows(inv) }
