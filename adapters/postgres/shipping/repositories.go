package shipping

import (
	"fmt"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain/shipping"
	shippingports "github.com/acme3pl/fulfillment/ports/shipping"
)

// Repositories binds the shipping context's repositories to h: a unit of
// work's transaction (postgres.UnitOfWorkOf) or the pool. Its own are the
// shipments, the inventory and the stock ledger; the rest are the kit's.
func Repositories(h postgres.Handle) shippingports.Repositories {
	return shippingports.Repositories{
		Shipments:  Shipments(h),
		Inventory:  Inventory(h),
		Warehouses: postgres.Warehouses(h),
		Stock:      Stock(h),
		Trail:      postgres.Trail(h),
	}
}

// The package's repositories that the warehouse context's bind
// (adapters/postgres/warehouse) builds its Repositories with, on h.

// Inventory is the products and cartons and their stock.
func Inventory(h postgres.Handle) shippingports.InventoryRepository {
	return &InventoryRepository{run: h.Runner()}
}

// Shipments are the shipments.
func Shipments(h postgres.Handle) shippingports.ShipmentRepository {
	return &ShipmentRepository{run: h.Runner()}
}

// Stock is the stock ledger.
func Stock(h postgres.Handle) shippingports.StockLedger { return &StockLedger{run: h.Runner()} }

// Statements are the package's statements by name, for the one golden
// file of every statement (adapters/postgres/testdata/statements.golden).
func Statements() map[string]postgres.Statement {
	all := map[string]postgres.Statement{
		"createPickPackSQL":          createPickPackSQL,
		"createSPDSQL":               createSPDSQL,
		"getShipmentSQL":             getShipmentSQL,
		"insertShipmentCartonsSQL":   postgres.SQLInsert(insertShipmentCartonsSQL),
		"insertShipmentItemsSQL":     postgres.SQLInsert(insertShipmentItemsSQL),
		"insertShipmentSQL":          postgres.SQLInsert(insertShipmentSQL),
		"itemMovementsSQL":           itemMovementsSQL,
		"listAtWarehouseSQL":         listAtWarehouseSQL,
		"listShipmentsByStatusSQL":   listShipmentsByStatusSQL,
		"listShipmentsSQL":           listShipmentsSQL,
		"lockShipmentAtWarehouseSQL": lockShipmentAtWarehouseSQL,
		"lockShipmentSQL":            lockShipmentSQL,
		"moveStockSQL":               moveStockSQL,
		"onHandAtSQL":                onHandAtSQL,
		"reserveProductsSQL":         postgres.SQLInsert(reserveProductsSQL),
		"selectShipmentsSQL":         selectShipmentsSQL,
		"shipmentCartonsSQL":         shipmentCartonsSQL,
		"shipmentMovementsSQL":       shipmentMovementsSQL,
		"shipmentProductsSQL":        shipmentProductsSQL,
		"updateShipmentSQL":          updateShipmentSQL,
	}
	for _, kind := range []shipping.ItemKind{shipping.KindProduct, shipping.KindCarton} {
		q := inventorySQLOf(kind)
		names := []string{"findByIDs", "page", "pageBySKU", "levels", "lock", "adjust"}
		for i, s := range []postgres.Statement{q.findByIDs, q.page, q.pageBySKU, q.levels, q.lock, q.adjust} {
			all[fmt.Sprintf("%s.%s", kind, names[i])] = s
		}
	}
	return all
}

// The parts of the package's statements that the intake's acceptance
// (adapters/postgres/intake) writes a shipment with: the shipment, its
// items and their reservations, with ShipmentArgs' parameters.
const (
	ReserveProductsSQL     = reserveProductsSQL
	InsertShipmentSQL      = insertShipmentSQL
	InsertShipmentItemsSQL = insertShipmentItemsSQL
)

// ShipmentArgs are s's parameters of InsertShipmentSQL and
// InsertShipmentItemsSQL.
func ShipmentArgs(s *shipping.Shipment) []any { return shipmentArgs(s) }

// The tables and the ledger's part that the fixture store
// (adapters/postgres/fixture) writes a fixture's inventory and stock with.

// InventoryTable is the table of the products or the cartons.
func InventoryTable(kind shipping.ItemKind) string { return inventoryTable(kind) }

// StockTable is the stock table of kind and its column of the item.
func StockTable(kind shipping.ItemKind) (table, column string) { return stockTable(kind) }

// MovementsCTE is the stock ledger's common table expression that writes
// the movements of a CTE named moves.
const MovementsCTE = movementsCTE

// StockCheckErr maps a violation of a stock table's CHECKs.
func StockCheckErr(err error) error { return stockCheckErr(err) }
