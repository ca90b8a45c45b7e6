package postgres

import (
	"github.com/acme3pl/fulfillment/domain"
)

// The rows of the kit's repositories that the fixture store
// (adapters/postgres/fixture) writes as they do: the warehouses (the
// kernel's).

// WarehouseRow is a warehouse's row.
type WarehouseRow = warehouseRow

// WarehouseToRow is w's row.
func WarehouseToRow(w domain.Warehouse) WarehouseRow { return warehouseToRow(w) }
