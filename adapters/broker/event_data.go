package broker

import (
	"fmt"

	"github.com/acme3pl/fulfillment/adapters/apiview"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/domain/warehouse"
	eventsports "github.com/acme3pl/fulfillment/ports/events"
)

// The data of the platform's events (docs/events.md): the record as the
// API shows it (package apiview, the same conversions as the answers), so
// that an event's data equals the GET of its record once the change has
// committed.

// shipmentEventData is a shipment's event data: the shipment as
// GET /v0/shipments/{id} shows it, with its organization.
type shipmentEventData struct {
	apiview.Shipment
	OrganizationID string `json:"organizationId"`
}

// invoiceEventData is an invoice's event data: the invoice as
// GET /v0/invoices/{id} shows it, with its organization.
type invoiceEventData struct {
	apiview.Invoice
	OrganizationID string `json:"organizationId"`
}

// EventData returns the value whose JSON is e's data: a shipment's,
// an invoice's, a storefront order's receipt (as
// GET /v0/storefront/orders/{orderId} shows it: never the kept body), or a
// warehouse receipt (as POST /v0/warehouse/receipts answers it), or an
// operator's audit record (as `fulfillment audit list` prints it).
// A record of another type is an error; a new kind of record adds its
// case (a new event type of a record it knows needs none).
func EventData(e eventsports.Event) (any, error) {
	switch v := e.Data.(type) {
	case *shipping.Shipment:
		return shipmentEventData{Shipment: apiview.ShipmentOf(v), OrganizationID: v.OrganizationID()}, nil
	case *invoicing.Invoice:
		return invoiceEventData{Invoice: apiview.InvoiceOf(v), OrganizationID: v.OrganizationID()}, nil
	case *intake.OrderReceipt:
		return apiview.OrderReceiptOf(v), nil
	case *warehouse.Receipt:
		return apiview.WarehouseReceiptOf(v), nil
	case audit.Record:
		return apiview.AuditRecordOf(v), nil
	}
	return nil, fmt.Errorf("event %s: no API view of %T", e.Type, e.Data)
}
