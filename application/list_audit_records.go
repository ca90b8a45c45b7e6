package application

import (
	"context"

	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
)

// ListAuditRecords reads the audit log (`fulfillment audit list`): the
// records Query selects, oldest first, each handed to Each.
type ListAuditRecords struct {
	Query ports.AuditQuery
	Each  func(audit.Record) error
}

// ListAuditRecordsHandler answers ListAuditRecords.
type ListAuditRecordsHandler struct{ log ports.AuditLog }

// NewListAuditRecordsHandler builds the handler on the pool's audit log.
func NewListAuditRecordsHandler(log ports.AuditLog) *ListAuditRecordsHandler {
	return &ListAuditRecordsHandler{log: log}
}

// Handle lists the records.
func (h *ListAuditRecordsHandler) Handle(ctx context.Context, q ListAuditRecords) (struct{}, error) {
	return struct{}{}, h.log.List(ctx, q.Query, q.Each)
}
