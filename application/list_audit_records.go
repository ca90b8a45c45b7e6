package application

import (
	"context"

	"github.com/acme3pl/fulfillment/domain"

	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// ListAuditRecords reads the audit log (`fulfillment audit list`): the
// records Query selects, oldest first, each handed to Each.
type ListAuditRecords struct {
	Query auditports.Query
	Each  func(audit.Record) error
}

// ListAuditRecordsHandler answers ListAuditRecords.
type ListAuditRecordsHandler struct{ log auditports.Log }

// NewListAuditRecordsHandler builds the handler on the pool's audit log.
func NewListAuditRecordsHandler(log auditports.Log) *ListAuditRecordsHandler {
	return &ListAuditRecordsHandler{log: log}
}

// Handle lists the records.
func (h *ListAuditRecordsHandler) Handle(ctx context.Context, q ListAuditRecords) (struct{}, error) {
	return struct{}{}, h.log.List(ctx, q.Query, q.Each)
}

// ListAuditPage reads a page of the audit log, newest first (the console's
// audit page), filtered by organization, actor and action.
type ListAuditPage struct {
	Query auditports.Query
	Page  ports.Page
}

// AuditPage is a page of audit records.
type AuditPage = Page[audit.Record]

// NewListAuditPageHandler builds the handler on the pool's audit log.
func NewListAuditPageHandler(log auditports.Log) HandlerFunc[ListAuditPage, AuditPage] {
	return List(func(ctx context.Context, q ListAuditPage) ([]audit.Record, bool, error) {
		if q.Query.Action != "" && !q.Query.Action.Valid() {
			return nil, false, domain.Invalid("action", "%q is not an action of the audit log", q.Query.Action)
		}
		return log.Page(ctx, q.Query, q.Page)
	})
}
