package apiview

import (
	"encoding/json"

	"github.com/acme3pl/fulfillment/domain/audit"
)

// AuditRecord is an audit record (docs/audit.md) as `fulfillment audit
// list` prints it and the event operator.action carries it.
type AuditRecord struct {
	ID             string          `json:"id"`
	At             string          `json:"at"`
	Actor          audit.Actor     `json:"actor"`
	Action         string          `json:"action"`
	OrganizationID string          `json:"organizationId"`
	Input          json.RawMessage `json:"input"`
	Outcome        string          `json:"outcome"`
	TraceID        string          `json:"traceId"`
}

// AuditRecordOf is rec's view.
func AuditRecordOf(rec audit.Record) AuditRecord {
	input := json.RawMessage(rec.Input)
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	return AuditRecord{
		ID: rec.ID, At: FormatTime(rec.At), Actor: rec.Actor, Action: string(rec.Action),
		OrganizationID: rec.OrganizationID, Input: input, Outcome: string(rec.Outcome), TraceID: rec.TraceID,
	}
}
