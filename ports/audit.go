package ports

import (
	"context"
	"time"

	"github.com/acme3pl/fulfillment/domain/audit"
)

// AuditLog is the audit log of the operators' actions (docs/audit.md). In
// a unit of work (Repositories.Audit) Append writes a record in the
// action's transaction; records are never updated or deleted.
type AuditLog interface {
	// Append writes rec.
	Append(ctx context.Context, rec audit.Record) error
	// List hands each record q selects to each, oldest first (by at, then
	// in the order they were written), and stops at each's first error.
	List(ctx context.Context, q AuditQuery, each func(audit.Record) error) error
	// Page returns a page of the records q selects, newest first, and
	// whether more follow (the console's audit page).
	Page(ctx context.Context, q AuditQuery, page Page) ([]audit.Record, bool, error)
}

// AuditQuery selects records: every field left empty selects all.
type AuditQuery struct {
	OrganizationID string
	Actor          string    // the actor's subject or e-mail
	Since          time.Time // records at or after it
	Action         audit.Action
}
