package audit

import (
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports/events"
)

// OperatorActionEvent reports an operator's action: its audit record. The
// subject is the record's ID.
func OperatorActionEvent(rec audit.Record) events.Event {
	return events.Event{Type: events.EventOperatorAction, Subject: rec.ID, OrganizationID: rec.OrganizationID, Time: rec.At, Data: rec}
}
