package warehouse

import (
	"context"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	"github.com/acme3pl/fulfillment/ports"
)

// RecordReceiptEvent is the events' WarehouseHooks.ReceiptEvent: a new
// warehouse receipt's inventory.received, in the receipt's transaction
// (the receipt is a new row: nobody else writes events of it before the
// commit). Bootstrap sets it.
func RecordReceiptEvent(ctx context.Context, r ports.Repositories, receipt *warehouse.Receipt) error {
	return r.Events.Record(ctx, ports.Event{
		Type: ports.EventInventoryReceived, Subject: receipt.ID(), OrganizationID: receipt.OrganizationID(),
		Time: receipt.CreatedAt(), Data: receipt,
	})
}

// RecordShippedEvent is the events' WarehouseHooks.ShipmentEvent: a
// shipment's shipment.shipped, in the ship's transaction, which holds the
// shipment's row lock (UpdateAtWarehouse); never for a replay. Bootstrap
// sets it.
func RecordShippedEvent(ctx context.Context, r ports.Repositories, shipped *shipping.Shipment) error {
	return r.Events.Record(ctx, ports.ShipmentEvent(ports.EventShipmentShipped, shipped, shipped.UpdatedAt()))
}
