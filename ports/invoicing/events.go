package invoicing

import (
	"time"

	"github.com/acme3pl/fulfillment/domain/invoicing"
	"github.com/acme3pl/fulfillment/ports/events"
)

// InvoiceEvent reports a change of inv (finalized, status changed).
func InvoiceEvent(t events.EventType, inv *invoicing.Invoice, at time.Time) events.Event {
	return events.Event{Type: t, Subject: inv.ID(), OrganizationID: inv.OrganizationID(), Time: at, Data: inv}
}
