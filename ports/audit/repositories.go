package audit

import "github.com/acme3pl/fulfillment/ports/events"

// Trail is what an operator's action writes its record to (docs/audit.md):
// the audit log and the event recorder of the action's transaction. The
// Repositories of each context whose use cases the operators run embed it,
// so r.Audit and r.Events are theirs; application.Auditor writes to it.
type Trail struct {
	// Audit is the audit log of the operators' actions.
	Audit Log
	// Events records the platform's events of the transaction's changes
	// (events.EventRecorder); outside a unit of work it refuses to.
	Events events.EventRecorder
}

// AuditTrail is t: through it application.Auditor reaches the trail of
// any Repositories that embeds a Trail.
func (t Trail) AuditTrail() Trail { return t }

// Audited is a context's Repositories that embeds a Trail.
type Audited interface {
	AuditTrail() Trail
}
