package application

import (
	"context"

	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// RecordOperatorAction writes the audit record of an operator action that
// ran as several transactions of its own — `orders replay`, one
// transaction per order — once it ended, with the outcome its command
// reported: the record of the run, not of each order.
type RecordOperatorAction struct {
	Operation Operation
	Outcome   audit.Outcome
}

// RecordOperatorActionHandler answers RecordOperatorAction.
type RecordOperatorActionHandler struct {
	audit *Auditor[accessports.Repositories]
}

// NewRecordOperatorActionHandler builds the handler.
func NewRecordOperatorActionHandler(uow ports.UnitOfWork[accessports.Repositories], clock ports.Clock, ids ports.IDGenerator) *RecordOperatorActionHandler {
	return &RecordOperatorActionHandler{audit: NewAuditor(uow, clock, ids)}
}

// Handle writes the record and its operator.action event in one
// transaction.
func (h *RecordOperatorActionHandler) Handle(ctx context.Context, c RecordOperatorAction) (struct{}, error) {
	return struct{}{}, h.audit.Record(ctx, c.Operation, c.Outcome)
}
