package shipping

import (
	"time"

	"github.com/acme3pl/fulfillment/domain/shipping"
	"github.com/acme3pl/fulfillment/ports/events"
)

// ShipmentEvent reports a change of s (created, shipped, cancelled).
func ShipmentEvent(t events.EventType, s *shipping.Shipment, at time.Time) events.Event {
	return events.Event{Type: t, Subject: s.ID(), OrganizationID: s.OrganizationID(), Time: at, Data: s}
}
