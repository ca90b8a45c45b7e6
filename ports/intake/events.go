package intake

import (
	"strconv"
	"time"

	"github.com/acme3pl/fulfillment/domain/intake"
	"github.com/acme3pl/fulfillment/ports/events"
)

// OrderFailedEvent reports a failed delivery of a storefront order: its
// receipt as the failure left it. The subject is the order's ID.
func OrderFailedEvent(r *intake.OrderReceipt, at time.Time) events.Event {
	return events.Event{
		Type: events.EventStorefrontOrderFailed, Subject: strconv.FormatInt(r.OrderID(), 10),
		OrganizationID: r.OrganizationID(), Time: at, Data: r,
	}
}
